package dev.lancelot.engine.distributed;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.internal.query.DistributedSearch;
import dev.lancelot.engine.internal.query.exec.Candidates;
import dev.lancelot.engine.internal.query.exec.Merger;
import dev.lancelot.engine.internal.query.exec.UnitResult;
import dev.lancelot.engine.internal.query.plan.SearchPlan;
import dev.lancelot.engine.internal.query.plan.SearchUnit;
import dev.lancelot.engine.internal.scan.FragmentScan;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.query.VectorSearchResult;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A planned vector search of one dataset version (SPEC Q1–Q14, S4): independent {@link SearchTask}s
 * — one per index segment and one per group of unindexed fragments — and the one merge that turns
 * their results into the answer.
 *
 * <p>Two shapes, one merge:
 *
 * <ul>
 *   <li><b>A query with its vectors</b> ({@link VectorQuery#hasVectors()}): run every task ({@link
 *       SearchTask#run(Dataset)}), then {@link #finish} merges their {@link TaskResult}s into a
 *       {@link VectorSearchResult} — exactly what {@link dev.lancelot.engine.query.VectorSearch}
 *       returns locally.
 *   <li><b>Parameters alone</b> ({@link VectorQuery.Builder#buildParameters()}), for query vectors
 *       that come from elsewhere (a DataFrame of queries): tasks run with blocks of vectors ({@link
 *       SearchTask#run(Dataset, float[][])}), each query's {@link QueryCandidates} are gathered
 *       from every task, and {@link #mergeQueries} gives each query its global top-k.
 * </ul>
 *
 * The plan reads only metadata; it is immutable and {@linkplain #toBytes() travels as bytes}.
 */
public final class VectorSearchPlan implements Serializable {
  private static final long serialVersionUID = 1L;
  private final SearchPlan plan;

  private VectorSearchPlan(SearchPlan plan) {
    this.plan = plan;
  }

  /**
   * Plans {@code query} on {@code dataset}'s version. The query may hold its vectors, or only the
   * parameters ({@link VectorQuery.Builder#buildParameters()}); every rule is checked here, on the
   * coordinator, so that tasks fail only for reasons of their own (storage, a vector of the wrong
   * dimension in a query frame).
   *
   * @throws dev.lancelot.engine.query.InvalidQueryException for a query the dataset cannot answer
   */
  public static VectorSearchPlan plan(Dataset dataset, VectorQuery query) {
    return new VectorSearchPlan(DistributedSearch.plan(dataset, query));
  }

  /** The dataset location the plan searches. */
  public String location() {
    return plan.location();
  }

  /** The dataset version the plan searches; tasks must run on the same version. */
  public long version() {
    return plan.version();
  }

  /** The vector column searched. */
  public String vectorColumn() {
    return plan.vectorColumn();
  }

  /** The dimension every query vector must have. */
  public int dimension() {
    return plan.dimension();
  }

  /** The query (or the parameters alone) the plan was made for. */
  public VectorQuery query() {
    return plan.query();
  }

  /**
   * The tasks, in plan order; each is independent of the others and carries the plan's parameters
   * with its own search unit only (so its bytes do not grow with the number of tasks).
   */
  public List<SearchTask> tasks() {
    List<SearchTask> out = new ArrayList<>(plan.units().size());
    for (int i = 0; i < plan.units().size(); i++) {
      out.add(new SearchTask(plan.withUnits(List.of(plan.units().get(i))), i));
    }
    return out;
  }

  /** Number of tasks ({@code tasks().size()}). */
  public int taskCount() {
    return plan.units().size();
  }

  /** Decisions worth telling the user (fallback reasons, warnings), as explain shows them. */
  public List<String> notes() {
    return plan.notes();
  }

  /** The explain tree (SPEC Q12), as text. */
  public String explain() {
    return plan.explain();
  }

  /**
   * The schema of the answer's rows: {@code query_index} first when the plan is for several vectors
   * or a query frame, then the result columns, {@code _distance}, and {@code _rowid} when asked
   * (SPEC Q13).
   */
  public Schema resultSchema(Dataset dataset) {
    List<Field> fields = new ArrayList<>();
    if (plan.query().isBatch() || !plan.query().hasVectors()) {
      fields.add(Merger.QUERY_INDEX);
    }
    for (String c : plan.merge().columns()) {
      fields.add(dataset.lanceSchema().field(c).orElseThrow().toArrow());
    }
    fields.add(Merger.DISTANCE);
    if (plan.merge().withRowId()) {
      fields.add(FragmentScan.ROW_ID_FIELD);
    }
    return new Schema(fields);
  }

  /**
   * Merges the results of every task of a plan made with its vectors into the answer (the
   * coordinator's side); the rows are read from {@code dataset} (the plan's version) for the final
   * rows only.
   *
   * @param results one per task, in any order
   * @param startNanos {@link System#nanoTime()} when the search started, for the result's timing
   */
  public VectorSearchResult finish(Dataset dataset, List<TaskResult> results, long startNanos) {
    checkVersion(dataset);
    if (!plan.query().hasVectors()) {
      throw new IllegalStateException(
          "A plan made from parameters alone is merged per query with mergeQueries");
    }
    List<UnitResult> unitResults = new ArrayList<>(results.size());
    for (TaskResult r : results) {
      unitResults.add(r.internal());
    }
    return DistributedSearch.finish(dataset, plan, unitResults, startNanos);
  }

  /**
   * The answer of a block of queries of a query frame: {@code perQuery.get(i)} holds query {@code
   * i}'s candidates from the tasks (at most one per task; a task that found nothing may be
   * missing). Returns the answer's rows as {@link #resultSchema} describes them, {@code
   * query_index} being the position in {@code perQuery}; the root belongs to the caller.
   */
  public VectorSchemaRoot mergeQueries(Dataset dataset, List<List<QueryCandidates>> perQuery) {
    checkVersion(dataset);
    int units = plan.units().size();
    List<List<Candidates>> byUnit = new ArrayList<>(units);
    for (int u = 0; u < units; u++) {
      List<Candidates> c = new ArrayList<>(perQuery.size());
      for (int q = 0; q < perQuery.size(); q++) {
        c.add(Candidates.EMPTY);
      }
      byUnit.add(c);
    }
    for (int q = 0; q < perQuery.size(); q++) {
      for (QueryCandidates c : perQuery.get(q)) {
        if (c.task() < 0 || c.task() >= units) {
          throw new InvalidInputException(
              "Cannot merge candidates of task " + c.task() + ": the plan has " + units + " tasks");
        }
        byUnit.get(c.task()).set(q, c.internal());
      }
    }
    List<Merger.UnitCandidates> results = new ArrayList<>(units);
    for (int u = 0; u < units; u++) {
      results.add(new Merger.UnitCandidates(plan.units().get(u), byUnit.get(u)));
    }
    List<Merger.Ranked> ranked = Merger.rank(plan.merge(), results, perQuery.size());
    return Merger.materialize(dataset, plan.merge(), true, ranked);
  }

  private void checkVersion(Dataset dataset) {
    if (dataset.version() != plan.version() || !sameLocation(dataset.location())) {
      throw new IllegalStateException(
          "Search planned on "
              + plan.location()
              + "@v"
              + plan.version()
              + " finished on "
              + dataset.location()
              + "@v"
              + dataset.version());
    }
  }

  private boolean sameLocation(String location) {
    return strip(location).equals(strip(plan.location()));
  }

  private static String strip(String location) {
    return location.replaceAll("/+$", "");
  }

  /** The plan as bytes ({@link #fromBytes} reads them back). */
  public byte[] toBytes() {
    return Wire.serialize(Wire.SEARCH_PLAN, plan);
  }

  /**
   * Reads a plan written by {@link #toBytes}.
   *
   * @throws InvalidInputException if the bytes are not a plan
   */
  public static VectorSearchPlan fromBytes(byte[] bytes) {
    return new VectorSearchPlan(
        Wire.deserialize(Wire.SEARCH_PLAN, bytes, SearchPlan.class, "a vector search plan"));
  }

  @Override
  public String toString() {
    return "VectorSearchPlan["
        + plan.location()
        + "@v"
        + plan.version()
        + ", tasks="
        + Arrays.toString(plan.units().stream().map(SearchUnit::id).toArray())
        + "]";
  }
}
