package dev.lancelot.engine.query;

import dev.lancelot.engine.internal.query.QueryInternals;
import dev.lancelot.engine.internal.query.plan.Explain;
import dev.lancelot.engine.internal.query.plan.SearchPlan;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * The answer of a vector search: one Arrow batch with the result columns, {@code _distance}
 * (float32), {@code _rowid} when asked, and a leading {@code query_index} for batch queries (SPEC
 * Q13); plus the plan and what each unit did. The caller closes it.
 */
public final class VectorSearchResult implements AutoCloseable {
  private final SearchPlan plan;
  private final VectorSchemaRoot rows;
  private final List<UnitStats> stats;
  private final long totalNanos;

  static {
    QueryInternals.register(
        new QueryInternals.Access() {
          @Override
          public VectorSearchResult result(
              SearchPlan plan, VectorSchemaRoot rows, List<UnitStats> stats, long totalNanos) {
            return new VectorSearchResult(plan, rows, stats, totalNanos);
          }

          @Override
          public SearchPlan plan(VectorSearchResult result) {
            return result.plan;
          }
        });
  }

  private VectorSearchResult(
      SearchPlan plan, VectorSchemaRoot rows, List<UnitStats> stats, long totalNanos) {
    this.plan = plan;
    this.rows = rows;
    this.stats = List.copyOf(stats);
    this.totalNanos = totalNanos;
  }

  public VectorSchemaRoot rows() {
    return rows;
  }

  public int rowCount() {
    return rows.getRowCount();
  }

  public List<UnitStats> unitStats() {
    return stats;
  }

  public long totalNanos() {
    return totalNanos;
  }

  /** The plan that produced these rows, as {@link VectorSearch#explain} renders it (Q12). */
  public String explain() {
    return plan.explain();
  }

  /** The plan tree annotated with what each unit did (SPEC Q12 "analyze"). */
  public String analyze() {
    Map<String, UnitStats> byUnit = new LinkedHashMap<>();
    stats.forEach(s -> byUnit.put(s.unitId(), s));
    return Explain.render(plan, byUnit)
        + "-- rows returned: "
        + rows.getRowCount()
        + ", total time: "
        + String.format("%.2fms", totalNanos / 1e6)
        + "\n";
  }

  @Override
  public void close() {
    rows.close();
  }
}
