package dev.lancelot.spark.recall;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.collect_list;
import static org.apache.spark.sql.functions.first;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.DatasetNotFoundException;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.query.VectorSearch;
import dev.lancelot.engine.query.eval.RecallEvaluator;
import dev.lancelot.engine.query.eval.RecallEvaluator.Scenario;
import dev.lancelot.engine.query.eval.RecallPlan;
import dev.lancelot.engine.query.eval.RecallPlan.Cell;
import dev.lancelot.spark.LancePathCatalog;
import dev.lancelot.spark.search.LanceVectorSearch;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
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
 * evaluator: the engine plans it ({@link RecallPlan}: the grid, the fixed parameters, the five
 * scenarios and their skip reasons, {@code refine_factor=1} meaning none, the exact counterparts,
 * recall@k of a query and each cell's summary), exactly as for {@link RecallEvaluator}; only where
 * the searches run differs.
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
 *       is {@link RecallPlan#recallOf} against its truth, computed in the executors; the driver
 *       aggregates one small row per query.
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
    if (spec.limitQueries() < 0) {
      throw new RecallInputException(
          "Cannot evaluate recall with a query limit of "
              + spec.limitQueries()
              + ": give a positive number, or none for every query vector.");
    }
    List<Map<String, Object>> grid = RecallPlan.parseGrid(spec.grid());
    OutputFiles files = new OutputFiles(LancePathCatalog.hadoopConf());
    String location = LancePathCatalog.qualify(spec.dataset());
    String out = spec.out() == null ? null : LancePathCatalog.qualify(spec.out());
    String truthDir =
        spec.truthDirectory() == null ? null : LancePathCatalog.qualify(spec.truthDirectory());

    RecallPlan plan;
    try (Dataset ds = open(location, spec.version())) {
      plan =
          RecallPlan.plan(
              ds,
              new RecallPlan.Request(
                  spec.column(), spec.ks(), grid, spec.filter(), spec.selectiveFilter()));
    }
    long version = plan.version();
    List<Cell> cells = plan.cells();

    QueryInput queries = QueryInput.prepare(spark, spec, plan.dimension(), files);
    Map<GroundTruth.Key, org.apache.spark.sql.Dataset<Row>> truths = new HashMap<>();
    try {
      List<RecallResult> rows = new ArrayList<>();
      List<String> reused = new ArrayList<>();
      List<String> computed = new ArrayList<>();
      long truthNanos = 0;
      int n = 0;
      Set<Scenario> warmed = EnumSet.noneOf(Scenario.class);
      for (Cell c : cells) {
        n++;
        if (!c.measured()) {
          rows.add(RecallResult.notMeasured(c.scenario().label(), c.setting(), c.k(), c.note()));
          progress.accept(
              String.format(
                  "recall [%d/%d] k=%d %s %s: %s",
                  n, cells.size(), c.k(), c.scenario().label(), c.setting(), c.note()));
          continue;
        }
        GroundTruth.Key key = new GroundTruth.Key(location, version, c.truth(), queries.identity);
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
                                  c.exact()),
                          files,
                          progress);
                  (t.reused() ? reused : computed).add(t.where());
                  return t.rows();
                });
        truthNanos += System.nanoTime() - truthStart;
        if (warmed.add(c.scenario())) {
          // The first searches of a kind pay for code not yet compiled and index segments not
          // yet cached in the executors; run the scenario's first setting once, unmeasured, so
          // that its latencies compare with the later scenarios'.
          LanceVectorSearch.searchTimingEachQuery(
                  spark,
                  location,
                  version,
                  queries.frame.limit(WARM_UP_QUERIES),
                  QueryInput.VECTOR,
                  c.search())
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
                c.k(),
                c.scenario().label(),
                c.setting(),
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

  private static RecallResult measure(
      SparkSession spark,
      String location,
      long version,
      QueryInput queries,
      Cell c,
      org.apache.spark.sql.Dataset<Row> truth) {
    org.apache.spark.sql.Dataset<Row> hits =
        LanceVectorSearch.searchTimingEachQuery(
            spark, location, version, queries.frame, QueryInput.VECTOR, c.search());
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
            .map(new QueryRecall(c), Encoders.row(QueryRecall.SCHEMA))
            .collectAsList();
    if (perQuery.size() != queries.count) {
      throw new IllegalStateException(
          "The search answered " + perQuery.size() + " of " + queries.count + " queries");
    }
    List<RecallPlan.QueryOutcome> outcomes = new ArrayList<>(perQuery.size());
    for (Row r : perQuery) {
      outcomes.add(
          new RecallPlan.QueryOutcome(
              r.getDouble(0), r.getInt(1), r.getDouble(2), r.getLong(3), r.getLong(4)));
    }
    RecallPlan.Summary s = c.summarize(outcomes);
    return new RecallResult(
        c.scenario().label(),
        c.setting(),
        c.metric(),
        c.k(),
        s.recall(),
        s.recallP5(),
        s.rowsPerQuery(),
        s.p50Millis(),
        s.p99Millis(),
        s.partitionsProbed(),
        s.distancesComputed(),
        null);
  }

  /** One query's outcome (in the executors): recall@k, rows returned and statistics. */
  static final class QueryRecall implements MapFunction<Row, Row> {
    private static final long serialVersionUID = 1L;
    static final StructType SCHEMA =
        new StructType()
            .add("recall", DataTypes.DoubleType, false)
            .add("rows", DataTypes.IntegerType, false)
            .add("ms", DataTypes.DoubleType, false)
            .add("probed", DataTypes.LongType, false)
            .add("distances", DataTypes.LongType, false);
    private final Cell cell;

    QueryRecall(Cell cell) {
      this.cell = cell;
    }

    @Override
    public Row call(Row r) {
      List<Long> got = r.getList(0);
      List<Long> expected = r.isNullAt(1) ? List.of() : r.getList(1);
      RecallPlan.QueryOutcome o =
          cell.outcome(got, expected, r.getDouble(2), r.getLong(3), r.getLong(4));
      return RowFactory.create(
          o.recall(), o.rows(), o.millis(), o.partitionsProbed(), o.distancesComputed());
    }
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
}
