package dev.lancelot.spark.search;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.Scanner;
import dev.lancelot.engine.query.InvalidQueryException;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.query.VectorSearch;
import dev.lancelot.engine.query.eval.RecallEvaluator;
import dev.lancelot.spark.LancePathCatalog;
import dev.lancelot.spark.ScalaCollections;
import dev.lancelot.spark.shim.SparkLine;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Distributed vector search from Spark (SPEC S3–S6). The engine plans the query on the driver
 * (metadata only); each search unit becomes one input partition that searches its index segment or
 * fragment where the data is; the driver merges the units' candidates into exactly the global top-k
 * per query with the engine's own merge (the one its local executor runs) and reads the result
 * columns of those rows only — see {@link VectorSearchExec}. The returned DataFrame is lazy:
 * nothing runs until an action.
 */
public final class LanceVectorSearch {
  private static final ObjectMapper JSON = new ObjectMapper();

  private LanceVectorSearch() {}

  /** Searches the latest version of the dataset at {@code location}. */
  public static Dataset<Row> search(SparkSession spark, String location, VectorQuery query) {
    return search(spark, location, 0, query);
  }

  /** Searches {@code version} of the dataset (0 = latest). */
  public static Dataset<Row> search(
      SparkSession spark, String location, long version, VectorQuery query) {
    PlannedSearch search =
        PlannedSearch.plan(
            LancePathCatalog.qualify(location), version, query, LancePathCatalog.hadoopConf());
    return relation(spark, search);
  }

  /**
   * Searches with every vector of {@code queries}' column {@code queryVectorColumn} (array of float
   * or double) — thousands to millions of queries — each getting exactly its global top-k, as one
   * query at a time would (Lance's semantics). {@code params} holds the other parameters, without
   * vectors ({@link VectorQuery.Builder#buildParameters()}). The result has the queries' other
   * columns (a query id…) followed by the result columns, {@code _distance} and {@code _rowid} when
   * asked. Lazy; see {@link QueryFrameSearch} for how the work is split.
   */
  public static Dataset<Row> search(
      SparkSession spark,
      String location,
      Dataset<Row> queries,
      String queryVectorColumn,
      VectorQuery params) {
    return search(spark, location, 0, queries, queryVectorColumn, params);
  }

  /** Same, on {@code version} of the dataset (0 = latest). */
  public static Dataset<Row> search(
      SparkSession spark,
      String location,
      long version,
      Dataset<Row> queries,
      String queryVectorColumn,
      VectorQuery params) {
    return QueryFrameSearch.search(
        spark,
        LancePathCatalog.qualify(location),
        version,
        queries,
        queryVectorColumn,
        params,
        LancePathCatalog.hadoopConf());
  }

  /**
   * Per-query column of {@link #searchTimingEachQuery}: the query's executor time in ms, summed
   * over its units.
   */
  public static final String SEARCH_MS = QueryFrameSearch.SEARCH_MS;

  /**
   * Per-query column of {@link #searchTimingEachQuery}: index partitions probed, summed over its
   * units.
   */
  public static final String PARTITIONS_PROBED = QueryFrameSearch.PARTITIONS_PROBED;

  /**
   * Per-query column of {@link #searchTimingEachQuery}: distances computed, summed over its units.
   */
  public static final String DISTANCES_COMPUTED = QueryFrameSearch.DISTANCES_COMPUTED;

  /**
   * For evaluation jobs (recall, latency): like {@link #search(SparkSession, String, long, Dataset,
   * String, VectorQuery)}, but each task searches its unit for one query at a time and times it
   * inside the executor, so latency is per query. The output ends with {@link #SEARCH_MS}, {@link
   * #PARTITIONS_PROBED} and {@link #DISTANCES_COMPUTED}, repeated on each of the query's rows; a
   * query without results gets one row whose result columns are null. Slower than the default,
   * which searches a block of queries at once.
   */
  public static Dataset<Row> searchTimingEachQuery(
      SparkSession spark,
      String location,
      long version,
      Dataset<Row> queries,
      String queryVectorColumn,
      VectorQuery params) {
    return QueryFrameSearch.search(
        spark,
        LancePathCatalog.qualify(location),
        version,
        queries,
        queryVectorColumn,
        params,
        LancePathCatalog.hadoopConf(),
        true);
  }

  /** Same, with Lance's {@code nearest} parameters (without {@code q}) as a map. */
  public static Dataset<Row> search(
      SparkSession spark,
      String location,
      Dataset<Row> queries,
      String queryVectorColumn,
      Map<String, ?> nearest) {
    return search(
        spark, location, queries, queryVectorColumn, VectorQuery.parametersFromMap(nearest));
  }

  /** Same, with Lance's {@code nearest} parameters as a map (see {@link VectorQuery#fromMap}). */
  public static Dataset<Row> search(SparkSession spark, String location, Map<String, ?> nearest) {
    return search(spark, location, VectorQuery.fromMap(nearest));
  }

  /**
   * Same, with the parameters as a JSON object, e.g. {@code {"column":"vector","q":[...],"k":3}}.
   */
  public static Dataset<Row> searchJson(SparkSession spark, String location, String nearestJson) {
    return search(spark, location, parseJson(nearestJson));
  }

  /**
   * Recall@k of {@code query} against exact search on the same version (SPEC E1): runs the search
   * and its exact counterpart ({@code use_index=false}, filter and its placement unchanged, ranked
   * by the metric the search uses — the query's, else the index's; see {@link
   * VectorSearch#exactCounterpart}) as two Spark jobs on the latest version, and compares their row
   * ids per query vector.
   */
  public static SparkRecall recall(SparkSession spark, String path, VectorQuery query) {
    String location = LancePathCatalog.qualify(path);
    long version;
    VectorQuery search = query.toBuilder().withRowId(true).build();
    VectorQuery exact;
    try (dev.lancelot.engine.Dataset ds =
        dev.lancelot.engine.Dataset.open(
            location, OpenOptions.defaults().withHadoopConf(LancePathCatalog.hadoopConf()))) {
      version = ds.version();
      exact = VectorSearch.exactCounterpart(ds, search);
    }
    long t0 = System.nanoTime();
    List<Set<Long>> got = rowIds(search(spark, location, version, search).collectAsList(), query);
    long t1 = System.nanoTime();
    List<Set<Long>> expected =
        rowIds(search(spark, location, version, exact).collectAsList(), query);
    long t2 = System.nanoTime();
    double recall = 0;
    long rows = 0;
    for (int i = 0; i < got.size(); i++) {
      recall += RecallEvaluator.recallOf(got.get(i), expected.get(i), query.k());
      rows += got.get(i).size();
    }
    int n = got.size();
    return new SparkRecall(
        version,
        exact.metric().orElseThrow().lanceName(),
        n,
        (double) rows / n,
        recall / n,
        (t1 - t0) / 1e6,
        (t2 - t1) / 1e6);
  }

  /** Row ids per query vector (by {@code query_index} for a batch). */
  private static List<Set<Long>> rowIds(List<Row> rows, VectorQuery query) {
    List<Set<Long>> out = new ArrayList<>();
    for (int i = 0; i < query.vectors().length; i++) {
      out.add(new HashSet<>());
    }
    for (Row r : rows) {
      int qi = query.isBatch() ? r.getInt(r.fieldIndex("query_index")) : 0;
      out.get(qi).add(r.getLong(r.fieldIndex(Scanner.ROW_ID)));
    }
    return out;
  }

  /** The engine plan and its partition mapping, without running anything (SPEC S5). */
  public static String explain(SparkSession spark, String location, VectorQuery query) {
    return PlannedSearch.plan(
            LancePathCatalog.qualify(location), 0, query, LancePathCatalog.hadoopConf())
        .description();
  }

  static Map<String, Object> parseJson(String json) {
    try {
      return JSON.readValue(json, new TypeReference<Map<String, Object>>() {});
    } catch (Exception e) {
      throw new InvalidQueryException(
          "Cannot search: the nearest parameters are not a JSON object (" + e.getMessage() + ").");
    }
  }

  static Dataset<Row> relation(SparkSession spark, PlannedSearch search) {
    installStrategy(spark);
    return SparkLine.ofRows(spark, VectorSearchRelation.of(search));
  }

  /**
   * Makes sure {@code spark} plans vector searches with {@link VectorSearchStrategy}: sessions
   * configured with {@code LanceSparkExtensions} have it already; others get it as an extra
   * strategy of the session.
   */
  static void installStrategy(SparkSession spark) {
    List<org.apache.spark.sql.execution.SparkStrategy> extra =
        ScalaCollections.toJava(SparkLine.experimental(spark).extraStrategies());
    boolean present =
        extra.stream().anyMatch(s -> s instanceof VectorSearchStrategy)
            || ScalaCollections.toJava(SparkLine.planner(spark).strategies()).stream()
                .anyMatch(s -> s instanceof VectorSearchStrategy);
    if (!present) {
      synchronized (SparkLine.experimental(spark)) {
        List<org.apache.spark.sql.execution.SparkStrategy> strategies =
            ScalaCollections.toJava(SparkLine.experimental(spark).extraStrategies());
        strategies.add(new VectorSearchStrategy());
        SparkLine.experimental(spark).extraStrategies_$eq(ScalaCollections.list(strategies));
      }
    }
  }
}
