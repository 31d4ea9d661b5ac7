package dev.lancelot.spark.search;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.row_number;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.query.InvalidQueryException;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.query.eval.RecallEvaluator;
import dev.lancelot.engine.query.plan.MergeSpec;
import dev.lancelot.engine.query.plan.SearchPlan;
import dev.lancelot.engine.scan.ScanSpec;
import dev.lancelot.spark.LancePathCatalog;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.expressions.WindowSpec;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import scala.Option;

/**
 * Distributed vector search from Spark (SPEC S3–S6). The engine plans the query on the driver
 * (metadata only); each search unit becomes one input partition that searches its index segment or
 * fragment where the data is; the driver-side plan then keeps exactly the global top-k per query:
 *
 * <ol>
 *   <li>ANN candidates of all segments, ranked by approximate distance (ties by row address), cut
 *       to {@code k × refine_factor};</li>
 *   <li>with flat candidates (exact distances), ranked by the final distance — exact when the plan
 *       re-ranks, approximate otherwise — within the distance range, cut to {@code k};</li>
 *   <li>the postfilter removes rows (never backfilled, SPEC Q8).</li>
 * </ol>
 * This is the same merge the engine's local executor runs.
 */
public final class LanceVectorSearch {
  private static final ObjectMapper JSON = new ObjectMapper();

  private LanceVectorSearch() {}

  /** Searches the latest version of the dataset at {@code location}. */
  public static Dataset<Row> search(SparkSession spark, String location, VectorQuery query) {
    return search(spark, location, 0, query);
  }

  /** Searches {@code version} of the dataset (0 = latest). */
  public static Dataset<Row> search(SparkSession spark, String location, long version, VectorQuery query) {
    VectorSearchTable table = VectorSearchTable.plan(LancePathCatalog.qualify(location), version, query,
        LancePathCatalog.hadoopConf());
    Dataset<Row> candidates = relation(spark, table);
    return merge(candidates, table.searchPlan());
  }

  /** Same, with Lance's {@code nearest} parameters as a map (see {@link VectorQuery#fromMap}). */
  public static Dataset<Row> search(SparkSession spark, String location, Map<String, ?> nearest) {
    return search(spark, location, VectorQuery.fromMap(nearest));
  }

  /** Same, with the parameters as a JSON object, e.g. {@code {"column":"vector","q":[...],"k":3}}. */
  public static Dataset<Row> searchJson(SparkSession spark, String location, String nearestJson) {
    return search(spark, location, parseJson(nearestJson));
  }

  /**
   * Recall@k of {@code query} against exact search on the same version (SPEC E1): runs the search
   * and the same query with {@code use_index=false} (filter and its placement unchanged) as two
   * Spark jobs on the latest version, and compares their row ids per query vector.
   */
  public static SparkRecall recall(SparkSession spark, String path, VectorQuery query) {
    String location = LancePathCatalog.qualify(path);
    long version;
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(location,
        OpenOptions.defaults().withHadoopConf(LancePathCatalog.hadoopConf()))) {
      version = ds.version();
    }
    VectorQuery search = query.toBuilder().withRowId(true).build();
    VectorQuery exact = query.toBuilder().withRowId(true).useIndex(false).fastSearch(false).build();
    long t0 = System.nanoTime();
    List<Set<Long>> got = rowIds(search(spark, location, version, search).collectAsList(), query);
    long t1 = System.nanoTime();
    List<Set<Long>> expected = rowIds(search(spark, location, version, exact).collectAsList(), query);
    long t2 = System.nanoTime();
    double recall = 0;
    long rows = 0;
    for (int i = 0; i < got.size(); i++) {
      recall += RecallEvaluator.recallOf(got.get(i), expected.get(i), query.k());
      rows += got.get(i).size();
    }
    int n = got.size();
    return new SparkRecall(version, n, (double) rows / n, recall / n, (t1 - t0) / 1e6, (t2 - t1) / 1e6);
  }

  /** Row ids per query vector (by {@code query_index} for a batch). */
  private static List<Set<Long>> rowIds(List<Row> rows, VectorQuery query) {
    List<Set<Long>> out = new ArrayList<>();
    for (int i = 0; i < query.vectors().length; i++) {
      out.add(new HashSet<>());
    }
    for (Row r : rows) {
      int qi = query.isBatch() ? r.getInt(r.fieldIndex("query_index")) : 0;
      out.get(qi).add(r.getLong(r.fieldIndex(ScanSpec.ROW_ID)));
    }
    return out;
  }

  /** The engine plan and its partition mapping, without running anything (SPEC S5). */
  public static String explain(SparkSession spark, String location, VectorQuery query) {
    VectorSearchTable table = VectorSearchTable.plan(LancePathCatalog.qualify(location), 0, query,
        LancePathCatalog.hadoopConf());
    return table.newScanBuilder(CaseInsensitiveStringMap.empty()).build().description();
  }

  static Map<String, Object> parseJson(String json) {
    try {
      return JSON.readValue(json, new TypeReference<Map<String, Object>>() { });
    } catch (Exception e) {
      throw new InvalidQueryException("Cannot search: the nearest parameters are not a JSON object ("
          + e.getMessage() + ").");
    }
  }

  static Dataset<Row> relation(SparkSession spark, VectorSearchTable table) {
    LogicalPlan plan = DataSourceV2Relation.create(table, Option.empty(), Option.empty(),
        CaseInsensitiveStringMap.empty(), Option.empty());
    return org.apache.spark.sql.classic.Dataset.ofRows((org.apache.spark.sql.classic.SparkSession) spark, plan);
  }

  static Dataset<Row> merge(Dataset<Row> candidates, SearchPlan plan) {
    MergeSpec m = plan.merge();
    Column qi = col(CandidateSchema.QUERY_INDEX);
    // One pass over the candidates (the relation is scanned once): ANN candidates keep the best
    // candidate_k by approximate distance over all segments, flat candidates all pass.
    WindowSpec byApprox = Window.partitionBy(qi, col(CandidateSchema.KIND))
        .orderBy(col(CandidateSchema.APPROX).asc_nulls_last(), col(CandidateSchema.ROWADDR));
    Dataset<Row> pool = candidates.withColumn("_rank", row_number().over(byApprox))
        .filter(col(CandidateSchema.KIND).equalTo(1).or(col("_rank").leq(m.candidateK()))).drop("_rank");
    Column distance = m.exactRerank() ? col(CandidateSchema.EXACT) : col(CandidateSchema.APPROX);
    pool = pool.withColumn("_distance", distance);
    if (m.lowerBound() != null) {
      pool = pool.filter(col("_distance").geq(m.lowerBound()));
    }
    if (m.upperBound() != null) {
      pool = pool.filter(col("_distance").lt(m.upperBound()));
    }
    WindowSpec byDistance = Window.partitionBy(qi).orderBy(col("_distance").asc_nulls_last(),
        col(CandidateSchema.ROWADDR));
    Dataset<Row> top = pool.withColumn("_rank", row_number().over(byDistance)).filter(col("_rank").leq(m.k()))
        .filter(col(CandidateSchema.PASSES))
        // At most k rows per query: one partition sorted locally, without the sampling job of a global sort.
        .coalesce(1).sortWithinPartitions(qi, col("_rank"));
    List<Column> out = new ArrayList<>();
    if (plan.query().isBatch()) {
      out.add(qi);
    }
    for (String c : m.columns()) {
      out.add(col("`" + c.replace("`", "``") + "`"));
    }
    out.add(col("_distance"));
    if (m.withRowId()) {
      out.add(col(CandidateSchema.ROWADDR).as("_rowid"));
    }
    return top.select(out.toArray(new Column[0]));
  }
}
