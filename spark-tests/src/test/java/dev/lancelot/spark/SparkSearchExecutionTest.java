package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.ClusteredData;
import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.spark.search.LanceVectorSearch;
import dev.lancelot.spark.search.VectorSearchExec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import scala.jdk.javaapi.CollectionConverters;

/**
 * SPEC S4 as Spark runs it: a search is one job of unit tasks (one stage, no shuffle) whose
 * candidates the driver merges; the DataFrame is lazy (explain runs nothing); the search's metrics
 * are in the executed plan; SQL can compose the function's rows like any table.
 */
class SparkSearchExecutionTest extends SharedSpark {
  static final int DIM = 16;
  static Path dir;
  static float[] q;

  @BeforeAll
  static void build() throws Exception {
    dir = Files.createTempDirectory("spark-search-exec");
    write(0, 2000, WriteMode.CREATE);
    try (Dataset ds = Dataset.open(dir.toString())) {
      VectorIndexes.create(
              ds,
              "vector",
              VectorIndexSpec.of(IndexType.IVF_PQ, DistanceMetric.L2)
                  .withNumPartitions(4)
                  .withNumSubVectors(4))
          .close();
    }
    write(2000, 500, WriteMode.APPEND);
    q = ClusteredData.queries(1, DIM, 20, 4, 5)[0];
  }

  static void write(long first, int rows, WriteMode mode) throws Exception {
    try (VectorSchemaRoot b = ClusteredData.generate(allocator, first, rows, DIM, 20, 4);
        ArrowReader r = ArrowStreams.readerOf(allocator, List.of(b))) {
      Dataset.write(dir.toString(), r, WriteOptions.of(mode).withMaxRowsPerFile(1000)).close();
    }
  }

  /** Counts jobs and stages started while {@code action} runs. */
  static int[] jobsAndStages(Runnable action) throws Exception {
    AtomicInteger jobs = new AtomicInteger();
    AtomicInteger stages = new AtomicInteger();
    SparkListener listener =
        new SparkListener() {
          @Override
          public void onJobStart(SparkListenerJobStart e) {
            jobs.incrementAndGet();
          }

          @Override
          public void onStageSubmitted(SparkListenerStageSubmitted e) {
            stages.incrementAndGet();
          }
        };
    listening(listener, action);
    return new int[] {jobs.get(), stages.get()};
  }

  VectorQuery query() {
    return VectorQuery.builder("vector")
        .vector(q)
        .k(5)
        .nprobes(2)
        .refineFactor(2)
        .columns("id")
        .build();
  }

  @Test
  void aSearchIsOneJobOfOneStageAndExplainRunsNothing() throws Exception {
    org.apache.spark.sql.Dataset<Row> df = LanceVectorSearch.search(spark, dir.toString(), query());
    int[] explain =
        jobsAndStages(
            () ->
                df.queryExecution()
                    .explainString(
                        org.apache.spark.sql.execution.ExplainMode.fromString("extended")));
    assertThat(explain).containsExactly(0, 0);
    String plan = df.queryExecution().executedPlan().toString();
    assertThat(plan)
        .contains("LanceVectorSearch[")
        .contains("merge=driver")
        .doesNotContain("Exchange")
        .contains("partition 0 -> ann-0")
        .contains("partition 1 -> flat-1");
    int[] collect = jobsAndStages(() -> assertThat(df.collectAsList()).hasSize(5));
    assertThat(collect).containsExactly(1, 1);
  }

  @Test
  void metricsOfTheSearchAreInTheExecutedPlan() {
    org.apache.spark.sql.Dataset<Row> df = LanceVectorSearch.search(spark, dir.toString(), query());
    assertThat(df.collectAsList()).hasSize(5);
    SparkPlan exec = df.queryExecution().executedPlan();
    assertThat(exec).isInstanceOf(VectorSearchExec.class);
    Map<String, SQLMetric> metrics = CollectionConverters.asJava(exec.metrics());
    List<dev.lancelot.engine.query.UnitStats> local;
    try (Dataset ds = Dataset.open(dir.toString());
        dev.lancelot.engine.query.VectorSearchResult r =
            dev.lancelot.engine.query.VectorSearch.search(ds, query())) {
      local = r.unitStats();
    }
    assertThat(metrics.get("units").value()).isEqualTo(2);
    assertThat(metrics.get("partitionsProbed").value()).isEqualTo(2);
    assertThat(metrics.get("rowsScanned").value())
        .isEqualTo(local.stream().mapToLong(dev.lancelot.engine.query.UnitStats::rowsScanned).sum())
        .isGreaterThanOrEqualTo(500); // at least the unindexed fragment, scanned flat
    assertThat(metrics.get("distancesComputed").value())
        .isEqualTo(
            local.stream().mapToLong(dev.lancelot.engine.query.UnitStats::distancesComputed).sum());
    assertThat(metrics.get("candidates").value())
        .isEqualTo(10 + 5); // k × refine_factor (ANN) + k (flat)
    assertThat(metrics.get("rowsReturned").value()).isEqualTo(5);
    assertThat(metrics.get("distancesComputed").name().get()).isEqualTo("distances computed");
  }

  /** SPEC S4 with warm executors: a repeated search reads no index file and no byte again. */
  @Test
  void aRepeatedSearchIsServedFromTheExecutorCache() {
    VectorQuery indexedOnly =
        VectorQuery.builder("vector")
            .vector(ClusteredData.queries(1, DIM, 20, 4, 77)[0])
            .k(5)
            .nprobes(3)
            .fastSearch(true)
            .columns("id")
            .build();
    org.apache.spark.sql.Dataset<Row> first =
        LanceVectorSearch.search(spark, dir.toString(), indexedOnly);
    List<Row> a = first.collectAsList();
    Map<String, SQLMetric> cold =
        CollectionConverters.asJava(first.queryExecution().executedPlan().metrics());
    org.apache.spark.sql.Dataset<Row> second =
        LanceVectorSearch.search(spark, dir.toString(), indexedOnly);
    List<Row> b = second.collectAsList();
    Map<String, SQLMetric> warm =
        CollectionConverters.asJava(second.queryExecution().executedPlan().metrics());
    assertThat(b).isEqualTo(a);
    assertThat(cold.get("indexCacheMisses").value() + cold.get("indexCacheHits").value())
        .isGreaterThan(0);
    assertThat(warm.get("indexCacheMisses").value()).isZero();
    assertThat(warm.get("indexCacheHits").value())
        .isEqualTo(1 + 3); // the segment and its 3 probed partitions
    assertThat(warm.get("bytesRead").value()).isZero();
    assertThat(warm.get("filesOpened").value()).isZero();
    assertThat(warm.get("indexCacheHits").name().get()).isEqualTo("index cache hits");
  }

  /** The ordinary scan reports rows read, bytes read and files opened, summed over its tasks. */
  @Test
  void theOrdinaryScanReportsWhatItRead() {
    org.apache.spark.sql.Dataset<Row> df =
        spark
            .read()
            .format("lance")
            .load(dir.toString())
            .filter("tenant_id < 5")
            .select("id", "tenant_id");
    long rows = df.collectAsList().size();
    SparkPlan scan =
        CollectionConverters.asJava(df.queryExecution().executedPlan().collectLeaves()).get(0);
    Map<String, SQLMetric> metrics = CollectionConverters.asJava(scan.metrics());
    assertThat(metrics.get("rowsRead").value())
        .isGreaterThanOrEqualTo(rows)
        .isLessThanOrEqualTo(2500);
    assertThat(metrics.get("bytesRead").value()).isPositive();
    assertThat(metrics.get("filesOpened").value()).isPositive();
    assertThat(metrics.get("bytesRead").name().get()).isEqualTo("bytes read");
  }

  /** A notebook binds the query vector as a SQL parameter instead of writing it as literal text. */
  @Test
  void theQueryVectorCanBeASqlParameter() {
    float[] vector = q.clone();
    List<Row> bound =
        spark
            .sql(
                "SELECT id, _distance FROM lance_vector_search(:path, column => 'vector', q => :q, "
                    + "k => :k, nprobes => 2, refine_factor => 2)",
                Map.of("path", dir.toString(), "q", vector, "k", 5))
            .collectAsList();
    List<Row> direct = LanceVectorSearch.search(spark, dir.toString(), query()).collectAsList();
    assertThat(bound)
        .extracting(r -> r.getLong(0))
        .containsExactlyElementsOf(
            direct.stream().map(r -> r.getLong(r.fieldIndex("id"))).toList());
  }

  @Test
  void sqlComposesTheSearchRowsLikeATable() {
    StringBuilder array = new StringBuilder("array(");
    for (int i = 0; i < q.length; i++) {
      array.append(i == 0 ? "" : ", ").append("CAST(").append(q[i]).append(" AS FLOAT)");
    }
    array.append(")");
    List<Row> all =
        spark
            .sql(
                "SELECT id, _distance FROM lance_vector_search('"
                    + dir
                    + "', column => 'vector', q => "
                    + array
                    + ", k => 5, nprobes => 2, refine_factor => 2) ORDER BY _distance")
            .collectAsList();
    List<Row> some =
        spark
            .sql(
                "SELECT count(*), max(_distance) FROM lance_vector_search('"
                    + dir
                    + "', column => 'vector', q => "
                    + array
                    + ", k => 5, nprobes => 2, refine_factor => 2) WHERE id % 2 = 0")
            .collectAsList();
    long even = all.stream().filter(r -> r.getLong(0) % 2 == 0).count();
    assertThat(some.get(0).getLong(0)).isEqualTo(even);
    List<Row> direct = LanceVectorSearch.search(spark, dir.toString(), query()).collectAsList();
    assertThat(all)
        .extracting(r -> r.getLong(0))
        .containsExactlyElementsOf(
            direct.stream().map(r -> r.getLong(r.fieldIndex("id"))).toList());
  }
}
