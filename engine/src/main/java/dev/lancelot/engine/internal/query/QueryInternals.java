package dev.lancelot.engine.internal.query;

import dev.lancelot.engine.internal.query.plan.SearchPlan;
import dev.lancelot.engine.internal.util.AccessorSlot;
import dev.lancelot.engine.query.UnitStats;
import dev.lancelot.engine.query.VectorSearchResult;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Engine access to {@link VectorSearchResult}'s members that are not API (see {@link
 * AccessorSlot}).
 */
public final class QueryInternals {
  /** Implemented by {@link VectorSearchResult}. */
  public interface Access {
    VectorSearchResult result(
        SearchPlan plan, VectorSchemaRoot rows, List<UnitStats> stats, long totalNanos);

    SearchPlan plan(VectorSearchResult result);
  }

  private static final AccessorSlot<Access> SLOT = new AccessorSlot<>(VectorSearchResult.class);

  private QueryInternals() {}

  public static void register(Access access) {
    SLOT.set(access);
  }

  /** A search's answer: its rows (owned by the result), the plan and what each unit did. */
  public static VectorSearchResult result(
      SearchPlan plan, VectorSchemaRoot rows, List<UnitStats> stats, long totalNanos) {
    return SLOT.get().result(plan, rows, stats, totalNanos);
  }

  public static SearchPlan plan(VectorSearchResult result) {
    return SLOT.get().plan(result);
  }
}
