package dev.lancelot.spark.recall;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.collect_list;
import static org.apache.spark.sql.functions.first;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.DatasetNotFoundException;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.distributed.VectorSearchPlan;
import dev.lancelot.engine.expr.FilterParseException;
import dev.lancelot.engine.expr.FilterParser;
import dev.lancelot.engine.query.InvalidQueryException;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.query.VectorSearch;
import dev.lancelot.engine.query.eval.RecallEvaluator;
import dev.lancelot.engine.query.eval.RecallEvaluator.IndexState;
import dev.lancelot.engine.query.eval.RecallEvaluator.Options;
import dev.lancelot.engine.query.eval.RecallEvaluator.Scenario;
import dev.lancelot.spark.LancePathCatalog;
import dev.lancelot.spark.search.LanceVectorSearch;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recall evaluation as Spark jobs (SPEC E1, E2), for query sets too large for one machine's
 * evaluator: the rules are {@link RecallEvaluator}'s (grid, fixed parameters, the five scenarios
 * and their skip reasons, {@code refine_factor=1} meaning none, the exact counterpart, recall@k of
 * a query); only where the searches run differs.
 *
 * <ol>
 *   <li>Everything is checked before anything is written: the grid, the filters (parsed, then bound
 *       to the dataset), the dataset and column, the query vectors (column, type, dimension: one
 *       small job).
 *   <li>For each k, scenario and setting, the exact counterpart of the scenario's search ({@link
 *       VectorSearch#exactCounterpart}) gives the ground truth: exact top-k of every query as one
 *       distributed search over the DataFrame of queries, stored under the truth directory and
 *       reused by later runs with the same key (see {@link GroundTruth}).
 *   <li>The search itself runs as one distributed search with each query searched alone and timed
 *       inside the executors ({@link LanceVectorSearch#searchTimingEachQuery}); each query's recall
 *       is {@link RecallEvaluator#recallOf} against its truth, computed in the executors; the
 *       driver aggregates one small row per query.
 *   <li>The outputs (results.json, results.lance, report.html and its plots) are written last.
 * </ol>
 */
public final class DistributedRecall {
  private static final Logger LOG = LoggerFactory.getLogger(DistributedRecall.class);

  /** Queries of the unmeasured warm-up search run before each scenario's first measured setting. */
  static final int WARM_UP_QUERIES = 64;

  private DistributedRecall() {}

  /** Runs the evaluation; progress goes to this class's log. */
  public static RecallRun run(SparkSession spark, RecallSpec spec) {
    return run(spark, spec, LOG::info);
  }

  /**
   * Runs the evaluation, reporting progress (one line per ground truth and per setting) to {@code
   * progress}. Bad input fails with a {@link LancelotException} (mostly {@link
   * RecallInputException}) before any file is written.
   */
  public static RecallRun run(SparkSession spark, RecallSpec spec, Consumer<String> progress) {
    long start = System.nanoTime();
    if (spec.ks().isEmpty() || spec.ks().stream().anyMatch(k -> k == null || k < 1)) {
      throw new RecallInputException(
          "Cannot evaluate recall with k "
              + spec.ks()
              + ": give one or more values "
              + "of at least 1, e.g. 10 or 10,100.");
    }
    if (spec.limitQueries() < 0) {
      throw new RecallInputException(
          "Cannot evaluate recall with a query limit of "
              + spec.limitQueries()
              + ": give a positive number, or none for every query vector.");
    }
    List<Map<String, Object>> grid = RecallEvaluator.parseGrid(spec.grid());
    parseFilter("filter", spec.filter());
    parseFilter("selective filter", spec.selectiveFilter());
    OutputFiles files = new OutputFiles(LancePathCatalog.hadoopConf());
    String location = LancePathCatalog.qualify(spec.dataset());
    String out = spec.out() == null ? null : LancePathCatalog.qualify(spec.out());
    String truthDir =
        spec.truthDirectory() == null ? null : LancePathCatalog.qualify(spec.truthDirectory());

    long version;
    int dimension;
    IndexState index;
    List<Cell> cells = new ArrayList<>();
    try (Dataset ds = open(location, spec.version())) {
      version = ds.version();
      dimension = dimension(ds, spec.column(), location);
      index = IndexState.of(ds, spec.column());
      Options any = options(spec, spec.ks().get(0));
      for (Map<String, Object> setting : grid) {
        RecallEvaluator.checkSetting(setting, any);
      }
      checkFilterApplies(ds, spec, "filter", spec.filter());
      checkFilterApplies(ds, spec, "selective filter", spec.selectiveFilter());
      for (int k : spec.ks()) {
        Options o = options(spec, k);
        for (Scenario scenario : Scenario.values()) {
          String skip = RecallEvaluator.skipReason(scenario, o, index);
          if (skip != null) {
            cells.add(new Cell(k, scenario, "-", null, null, skip));
            continue;
          }
          for (Map<String, Object> setting : grid) {
            cells.add(cell(ds, o, scenario, setting, dimension));
          }
        }
      }
    }

    QueryInput queries = QueryInput.prepare(spark, spec, dimension, files);
    Map<GroundTruth.Key, org.apache.spark.sql.Dataset<Row>> truths = new HashMap<>();
    try {
      List<RecallResult> rows = new ArrayList<>();
      List<String> reused = new ArrayList<>();
      List<String> computed = new ArrayList<>();
      long truthNanos = 0;
      int n = 0;
      java.util.Set<Scenario> warmed = java.util.EnumSet.noneOf(Scenario.class);
      for (Cell c : cells) {
        n++;
        if (c.note != null) {
          rows.add(RecallResult.notMeasured(c.scenario.label(), c.params, c.k, c.note));
          progress.accept(
              String.format(
                  "recall [%d/%d] k=%d %s %s: %s",
                  n, cells.size(), c.k, c.scenario.label(), c.params, c.note));
          continue;
        }
        GroundTruth.Key key =
            new GroundTruth.Key(
                location,
                version,
                spec.column(),
                c.exact.metric().orElseThrow().lanceName(),
                c.exact.filter().orElse(null),
                c.exact.prefilter(),
                c.k,
                queries.identity);
        long truthStart = System.nanoTime();
        org.apache.spark.sql.Dataset<Row> truth =
            truths.computeIfAbsent(
                key,
                kk -> {
                  GroundTruth.Obtained t =
                      GroundTruth.obtain(
                          spark,
                          truthDir,
                          kk,
                          () ->
                              LanceVectorSearch.search(
                                  spark,
                                  location,
                                  version,
                                  queries.frame,
                                  QueryInput.VECTOR,
                                  c.exact),
                          files,
                          progress);
                  (t.reused() ? reused : computed).add(t.where());
                  return t.rows();
                });
        truthNanos += System.nanoTime() - truthStart;
        if (warmed.add(c.scenario)) {
          // The first searches of a kind pay for code not yet compiled and index segments not yet
          // cached in the
          // executors; run the scenario's first setting once, unmeasured, so that its latencies
          // compare with the
          // later scenarios'.
          LanceVectorSearch.searchTimingEachQuery(
                  spark,
                  location,
                  version,
                  queries.frame.limit(WARM_UP_QUERIES),
                  QueryInput.VECTOR,
                  c.search)
              .count();
        }
        RecallResult row = measure(spark, location, version, queries, c, truth);
        rows.add(row);
        progress.accept(
            String.format(
                "recall [%d/%d] k=%d %s %s: recall %.4f (p5 %.4f) against exact %s search, "
                    + "%.2f rows per query, p50 %.3f ms, p99 %.3f ms, %.1f partitions probed, %.0f distances computed",
                n,
                cells.size(),
                c.k,
                c.scenario.label(),
                c.params,
                row.recall(),
                row.recallP5(),
                row.metric(),
                row.rowsPerQuery(),
                row.p50Ms(),
                row.p99Ms(),
                row.partitionsProbed(),
                row.distancesComputed()));
      }
      RecallRun measured =
          new RecallRun(
              location,
              version,
              queries.count,
              rows,
              reused,
              computed,
              truthNanos / 1e6,
              (System.nanoTime() - start) / 1e6);
      if (out != null) {
        RecallOutputs.write(spark, out, measured, files);
      }
      RecallRun run =
          new RecallRun(
              location,
              version,
              queries.count,
              rows,
              reused,
              computed,
              truthNanos / 1e6,
              (System.nanoTime() - start) / 1e6);
      progress.accept(
          String.format(
              "recall evaluation took %.1f s (ground truth %.1f s: %d reused, %d computed)%s",
              run.millis() / 1e3,
              run.truthMillis() / 1e3,
              reused.size(),
              computed.size(),
              out == null ? "" : "; report written to " + out));
      return run;
    } finally {
      queries.frame.unpersist();
      truths.values().forEach(org.apache.spark.sql.Dataset::unpersist); // the ones kept in memory
    }
  }

  /**
   * One cell of the report: the search (parameters without vectors) and its exact counterpart, or
   * why not.
   */
  private record Cell(
      int k,
      Scenario scenario,
      String params,
      VectorQuery search,
      VectorQuery exact,
      String note) {}

  private static Cell cell(
      Dataset ds, Options o, Scenario scenario, Map<String, Object> setting, int dimension) {
    String params = RecallEvaluator.describe(setting);
    VectorQuery search =
        VectorQuery.parametersFromMap(RecallEvaluator.scenarioParameters(o, scenario, setting));
    try {
      VectorQuery exact =
          VectorSearch.exactCounterpart(
              ds, search.toBuilder().vector(new float[dimension]).build());
      return new Cell(
          o.k(),
          scenario,
          params,
          search,
          exact.toBuilder().vectors(new float[0][]).buildParameters(),
          null);
    } catch (InvalidQueryException e) {
      return new Cell(o.k(), scenario, params, null, null, "not measured: " + e.getMessage());
    }
  }

  private static RecallResult measure(
      SparkSession spark,
      String location,
      long version,
      QueryInput queries,
      Cell c,
      org.apache.spark.sql.Dataset<Row> truth) {
    org.apache.spark.sql.Dataset<Row> hits =
        LanceVectorSearch.searchTimingEachQuery(
            spark, location, version, queries.frame, QueryInput.VECTOR, c.search);
    org.apache.spark.sql.Dataset<Row> got =
        hits.groupBy(QueryInput.QID)
            .agg(
                collect_list("_rowid").as("got"),
                first(LanceVectorSearch.SEARCH_MS).as("ms"),
                first(LanceVectorSearch.PARTITIONS_PROBED).as("probed"),
                first(LanceVectorSearch.DISTANCES_COMPUTED).as("distances"));
    org.apache.spark.sql.Dataset<Row> expected =
        truth.groupBy("qid").agg(collect_list("rowid").as("expected"));
    List<Row> perQuery =
        got.join(expected, got.col(QueryInput.QID).equalTo(expected.col("qid")), "left_outer")
            .select(col("got"), col("expected"), col("ms"), col("probed"), col("distances"))
            .map(new QueryRecall(c.k), Encoders.row(QueryRecall.SCHEMA))
            .collectAsList();
    if (perQuery.size() != queries.count) {
      throw new IllegalStateException(
          "The search answered " + perQuery.size() + " of " + queries.count + " queries");
    }
    int q = perQuery.size();
    double[] recalls = new double[q];
    double[] millis = new double[q];
    double recall = 0;
    double rows = 0;
    double probed = 0;
    double distances = 0;
    for (int i = 0; i < q; i++) {
      Row r = perQuery.get(i);
      recalls[i] = r.getDouble(0);
      millis[i] = r.getDouble(2);
      recall += recalls[i];
      rows += r.getInt(1);
      probed += r.getLong(3);
      distances += r.getLong(4);
    }
    Arrays.sort(recalls);
    Arrays.sort(millis);
    return new RecallResult(
        c.scenario.label(),
        c.params,
        c.exact.metric().orElseThrow().lanceName(),
        c.k,
        recall / q,
        RecallEvaluator.percentile(recalls, 0.05),
        rows / q,
        RecallEvaluator.percentile(millis, 0.50),
        RecallEvaluator.percentile(millis, 0.99),
        probed / q,
        distances / q,
        null);
  }

  /** One query's recall@k (in the executors), rows returned and statistics. */
  static final class QueryRecall implements MapFunction<Row, Row> {
    private static final long serialVersionUID = 1L;
    static final StructType SCHEMA =
        new StructType()
            .add("recall", DataTypes.DoubleType, false)
            .add("rows", DataTypes.IntegerType, false)
            .add("ms", DataTypes.DoubleType, false)
            .add("probed", DataTypes.LongType, false)
            .add("distances", DataTypes.LongType, false);
    private final int k;

    QueryRecall(int k) {
      this.k = k;
    }

    @Override
    public Row call(Row r) {
      List<Long> got = r.getList(0);
      Set<Long> expected = r.isNullAt(1) ? Set.of() : new HashSet<>(r.<Long>getList(1));
      double recall = RecallEvaluator.recallOf(new HashSet<>(got), expected, k);
      return RowFactory.create(recall, got.size(), r.getDouble(2), r.getLong(3), r.getLong(4));
    }
  }

  private static Options options(RecallSpec spec, int k) {
    return new Options(spec.column(), k, spec.filter(), spec.selectiveFilter());
  }

  private static Dataset open(String location, long version) {
    OpenOptions open = OpenOptions.defaults().withHadoopConf(LancePathCatalog.hadoopConf());
    if (version > 0) {
      open = open.withVersion(version);
    }
    try {
      return Dataset.open(location, open);
    } catch (DatasetNotFoundException e) {
      throw new RecallInputException(
          "Cannot evaluate recall on " + location + ": " + e.getMessage(), e);
    }
  }

  private static int dimension(Dataset ds, String column, String location) {
    var field = ds.lanceSchema().field(column);
    if (field.isPresent()
        && field.get().arrowType()
            instanceof org.apache.arrow.vector.types.pojo.ArrowType.FixedSizeList l) {
      return l.getListSize();
    }
    throw new RecallInputException(
        "Cannot evaluate recall on column \""
            + column
            + "\" of "
            + location
            + ": "
            + (field.isPresent() ? "it is not a vector column" : "there is no such column")
            + ". Name the vector column searched (--column).");
  }

  private static void parseFilter(String what, String filter) {
    if (filter == null) {
      return;
    }
    try {
      FilterParser.parse(filter);
    } catch (FilterParseException e) {
      throw new RecallInputException(
          "Cannot evaluate recall: the "
              + what
              + " \""
              + filter
              + "\" does not parse: "
              + e.getMessage(),
          e);
    }
  }

  /**
   * Plans an exact search with the filter: a column the dataset lacks, or a bad comparison, fails
   * here.
   */
  private static void checkFilterApplies(Dataset ds, RecallSpec spec, String what, String filter) {
    if (filter == null) {
      return;
    }
    try {
      VectorSearchPlan.plan(
          ds,
          VectorQuery.builder(spec.column())
              .k(1)
              .useIndex(false)
              .filter(filter)
              .prefilter(true)
              .buildParameters());
    } catch (LancelotException e) {
      throw new RecallInputException(
          "Cannot evaluate recall: the "
              + what
              + " \""
              + filter
              + "\" does not apply "
              + "to "
              + ds.location()
              + ": "
              + e.getMessage(),
          e);
    }
  }
}
