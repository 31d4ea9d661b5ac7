package dev.lancelot.engine.query.eval;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.expr.FilterParseException;
import dev.lancelot.engine.expr.FilterParser;
import dev.lancelot.engine.query.InvalidQueryException;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.query.VectorSearch;
import dev.lancelot.engine.query.eval.RecallEvaluator.IndexState;
import dev.lancelot.engine.query.eval.RecallEvaluator.Options;
import dev.lancelot.engine.query.eval.RecallEvaluator.Scenario;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * A recall evaluation (SPEC E1, E2) planned on the coordinator and run anywhere: every cell of the
 * report — one k, one scenario, one grid setting — with the search to measure and its exact
 * counterpart as query parameters without vectors, or the reason the cell is not measured.
 *
 * <p>{@link #plan} checks everything before anything runs (the ks, the grid, both filters — parsed,
 * then bound to the dataset —, the column and its index). A runner then, for each measured {@link
 * Cell}, obtains the ground truth of its {@link Cell#truth() key} (cells with equal keys share one:
 * exact answers depend on the metric, the filter and its placement and k only), runs the search on
 * every query vector, turns each query's answer into a {@link QueryOutcome} ({@link Cell#outcome})
 * and the outcomes into the cell's {@link Summary} ({@link Cell#summarize}). {@link
 * RecallEvaluator#evaluate} runs a plan in one process; the Spark connector runs the same plan as
 * distributed searches over a DataFrame of queries.
 */
public final class RecallPlan implements Serializable {
  private static final long serialVersionUID = 1L;

  /**
   * What to evaluate.
   *
   * @param column the vector column searched
   * @param ks the k of the searches (one report section each, in order)
   * @param grid the parameter settings (see {@link #parseGrid}); each is measured in every scenario
   * @param filter the prefilter scenario's filter (null: that scenario is not measured)
   * @param selectiveFilter the highly selective scenario's filter (null: not measured)
   */
  public record Request(
      String column,
      List<Integer> ks,
      List<Map<String, Object>> grid,
      String filter,
      String selectiveFilter) {
    public Request {
      Objects.requireNonNull(column, "column");
      ks = List.copyOf(ks);
      grid = List.copyOf(grid);
    }
  }

  /**
   * Which ground truth a cell is compared with: exact top-k by {@code metric} with the filter and
   * its placement, on the plan's version.
   */
  public record TruthKey(String column, String metric, String filter, boolean prefilter, int k)
      implements Serializable {}

  /**
   * One cell of the report.
   *
   * @param k the k of the search
   * @param scenario the scenario
   * @param setting the grid setting as the report names it ({@code nprobes=4, refine_factor=2},
   *     {@code defaults}; {@code -} for a scenario skipped as a whole)
   * @param search the search's parameters, without vectors (null when not measured)
   * @param exact the exact counterpart's parameters, without vectors (null when not measured)
   * @param note why the cell is not measured (null when it is)
   */
  public record Cell(
      int k, Scenario scenario, String setting, VectorQuery search, VectorQuery exact, String note)
      implements Serializable {

    public boolean measured() {
      return note == null;
    }

    /** The metric the exact search ranks by (null when not measured). */
    public String metric() {
      return exact == null ? null : exact.metric().orElseThrow().lanceName();
    }

    /** The ground truth this cell is compared with. */
    public TruthKey truth() {
      if (exact == null) {
        throw new IllegalStateException("Cell " + this + " is not measured: " + note);
      }
      return new TruthKey(
          exact.column(), metric(), exact.filter().orElse(null), exact.prefilter(), k);
    }

    /** One query's outcome: its recall@k ({@link #recallOf}) and the search's statistics. */
    public QueryOutcome outcome(
        Collection<Long> got,
        Collection<Long> expected,
        double millis,
        long partitionsProbed,
        long distancesComputed) {
      return new QueryOutcome(
          recallOf(new HashSet<>(got), new HashSet<>(expected), k),
          got.size(),
          millis,
          partitionsProbed,
          distancesComputed);
    }

    /** The cell's line of the report, from every query's outcome. */
    public Summary summarize(List<QueryOutcome> outcomes) {
      int q = outcomes.size();
      if (q == 0) {
        throw new IllegalArgumentException("Cannot summarize a recall cell of no query");
      }
      double[] recalls = new double[q];
      double[] millis = new double[q];
      double rows = 0;
      double probed = 0;
      double distances = 0;
      double recall = 0;
      for (int i = 0; i < q; i++) {
        QueryOutcome o = outcomes.get(i);
        recalls[i] = o.recall();
        millis[i] = o.millis();
        recall += o.recall();
        rows += o.rows();
        probed += o.partitionsProbed();
        distances += o.distancesComputed();
      }
      Arrays.sort(recalls);
      Arrays.sort(millis);
      return new Summary(
          q,
          recall / q,
          RecallEvaluator.percentile(recalls, 0.05),
          rows / q,
          RecallEvaluator.percentile(millis, 0.50),
          RecallEvaluator.percentile(millis, 0.99),
          probed / q,
          distances / q);
    }
  }

  /**
   * One query of a cell: recall@k, rows returned, search time and statistics.
   *
   * @param millis the search's time, as the runner measures it
   */
  public record QueryOutcome(
      double recall, int rows, double millis, long partitionsProbed, long distancesComputed)
      implements Serializable {}

  /**
   * A measured cell's numbers: averages over the queries, the 5th percentile of recall and the
   * latency percentiles (nearest rank, {@link RecallEvaluator#percentile}).
   */
  public record Summary(
      int queries,
      double recall,
      double recallP5,
      double rowsPerQuery,
      double p50Millis,
      double p99Millis,
      double partitionsProbed,
      double distancesComputed) {}

  private final String location;
  private final long version;
  private final int dimension;
  private final List<Cell> cells;

  private RecallPlan(String location, long version, int dimension, List<Cell> cells) {
    this.location = location;
    this.version = version;
    this.dimension = dimension;
    this.cells = List.copyOf(cells);
  }

  /**
   * Expands a grid such as {@code "nprobes=1,4,16;refine_factor=1,4"} into settings (cartesian
   * product, in order); no grid is one setting of Lance's defaults.
   *
   * @throws InvalidQueryException for text that does not parse
   */
  public static List<Map<String, Object>> parseGrid(String grid) {
    return RecallEvaluator.parseGrid(grid);
  }

  /**
   * Plans the evaluation of {@code request} on {@code dataset}'s version; reads metadata only.
   *
   * @throws InvalidInputException for input the evaluation cannot run with (no k or a k below 1, a
   *     grid setting that is unknown or varies what the evaluation fixes, a filter that does not
   *     parse or does not apply, a column that is not a vector column); the message names it
   */
  public static RecallPlan plan(Dataset dataset, Request request) {
    if (request.ks().isEmpty() || request.ks().stream().anyMatch(k -> k == null || k < 1)) {
      throw new InvalidInputException(
          "Cannot evaluate recall with k "
              + request.ks()
              + ": give one or more values of at least 1, e.g. 10 or 10,100.");
    }
    parseFilter("filter", request.filter());
    parseFilter("selective filter", request.selectiveFilter());
    int dimension = dimension(dataset, request.column());
    Options any = options(request, request.ks().get(0));
    for (Map<String, Object> setting : request.grid()) {
      RecallEvaluator.checkSetting(setting, any);
    }
    checkFilterApplies(dataset, request.column(), "filter", request.filter());
    checkFilterApplies(dataset, request.column(), "selective filter", request.selectiveFilter());
    IndexState index = IndexState.of(dataset, request.column());
    List<Cell> cells = new ArrayList<>();
    for (int k : request.ks()) {
      Options o = options(request, k);
      for (Scenario scenario : Scenario.values()) {
        String skip = RecallEvaluator.skipReason(scenario, o, index);
        if (skip != null) {
          cells.add(new Cell(k, scenario, "-", null, null, skip));
          continue;
        }
        for (Map<String, Object> setting : request.grid()) {
          cells.add(cell(dataset, o, scenario, setting));
        }
      }
    }
    return new RecallPlan(dataset.location(), dataset.version(), dimension, cells);
  }

  /** The dataset location evaluated. */
  public String location() {
    return location;
  }

  /** The version evaluated: every search and ground truth of the plan runs on it. */
  public long version() {
    return version;
  }

  /** The dimension every query vector must have. */
  public int dimension() {
    return dimension;
  }

  /** The report's cells, in report order (k, then scenario, then grid setting). */
  public List<Cell> cells() {
    return cells;
  }

  /**
   * Recall@k of one query (SPEC E1): the share of the exact answer's rows ({@code expected}, at
   * most k) that the search returned; when exact search finds nothing, 1 if the search found
   * nothing too.
   */
  public static double recallOf(Set<Long> got, Set<Long> expected, int k) {
    return RecallEvaluator.recallOf(got, expected, k);
  }

  private static Options options(Request r, int k) {
    return new Options(r.column(), k, r.filter(), r.selectiveFilter());
  }

  private static Cell cell(Dataset ds, Options o, Scenario scenario, Map<String, Object> setting) {
    String described = RecallEvaluator.describe(setting);
    VectorQuery search =
        VectorQuery.parametersFromMap(RecallEvaluator.scenarioParameters(o, scenario, setting));
    try {
      return new Cell(
          o.k(), scenario, described, search, VectorSearch.exactCounterpart(ds, search), null);
    } catch (InvalidQueryException e) {
      return new Cell(o.k(), scenario, described, null, null, "not measured: " + e.getMessage());
    }
  }

  private static int dimension(Dataset ds, String column) {
    var field = ds.lanceSchema().field(column);
    if (field.isPresent() && field.get().arrowType() instanceof ArrowType.FixedSizeList l) {
      return l.getListSize();
    }
    throw new InvalidInputException(
        "Cannot evaluate recall on column \""
            + column
            + "\" of "
            + ds.location()
            + ": "
            + (field.isPresent() ? "it is not a vector column" : "there is no such column")
            + ". Name the vector column searched.");
  }

  private static void parseFilter(String what, String filter) {
    if (filter == null) {
      return;
    }
    try {
      FilterParser.parse(filter);
    } catch (FilterParseException e) {
      throw new InvalidInputException(
          "Cannot evaluate recall: the "
              + what
              + " \""
              + filter
              + "\" does not parse: "
              + e.getMessage(),
          e);
    }
  }

  /** An exact search with the filter is planned: a missing column or a bad comparison fails. */
  private static void checkFilterApplies(Dataset ds, String column, String what, String filter) {
    if (filter == null) {
      return;
    }
    try {
      VectorSearch.explain(
          ds,
          VectorQuery.builder(column)
              .k(1)
              .useIndex(false)
              .filter(filter)
              .prefilter(true)
              .buildParameters());
    } catch (LancelotException e) {
      throw new InvalidInputException(
          "Cannot evaluate recall: the "
              + what
              + " \""
              + filter
              + "\" does not apply to "
              + ds.location()
              + ": "
              + e.getMessage(),
          e);
    }
  }
}
