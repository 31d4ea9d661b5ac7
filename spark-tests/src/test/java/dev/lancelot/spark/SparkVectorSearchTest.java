package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.spark.search.LanceVectorSearch;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.lance.WriteParams;
import org.lance.index.DistanceType;

/** SPEC S3–S6 on exact search: the global top-k from Spark equals Lance's answer. */
class SparkVectorSearchTest extends SharedSpark {
  static Path dir;
  static final int DIM = 16;

  @BeforeAll
  static void writeWithLance() throws Exception {
    dir = Files.createTempDirectory("spark-search");
    LanceOracle.write(allocator, dir, 0, 4000, DIM, 5, WriteParams.WriteMode.CREATE, 1000);
    try (var ds = LanceOracle.open(allocator, dir)) {
      ds.delete("id % 11 = 3");
    }
  }

  static float[] query(long seed) {
    Random r = new Random(seed);
    float[] q = new float[DIM];
    for (int i = 0; i < DIM; i++) {
      q[i] = (float) r.nextGaussian();
    }
    return q;
  }

  static void assertSameAsLance(List<Row> rows, List<LanceOracle.Hit> lance) {
    assertThat(rows)
        .extracting(r -> r.getLong(r.fieldIndex("id")))
        .containsExactlyElementsOf(lance.stream().map(LanceOracle.Hit::id).toList());
    for (int i = 0; i < rows.size(); i++) {
      assertThat(rows.get(i).getFloat(rows.get(i).fieldIndex("_distance")))
          .isCloseTo(lance.get(i).distance(), within(1e-4f));
    }
  }

  @Test
  void globalTopKNotKPerPartition() {
    float[] q = query(1);
    Dataset<Row> df =
        LanceVectorSearch.search(
            spark,
            dir.toString(),
            VectorQuery.builder("vector")
                .vector(q)
                .k(10)
                .useIndex(false)
                .columns("id", "tenant_id")
                .build());
    assertThat(df.rdd().getNumPartitions()).isGreaterThanOrEqualTo(1);
    List<Row> rows = df.collectAsList();
    assertThat(rows).hasSize(10);
    assertSameAsLance(
        rows, LanceOracle.nearest(allocator, dir, q, 10, null, null, null, false, null, false));
    assertThat(Arrays.asList(df.columns())).containsExactly("id", "tenant_id", "_distance");
  }

  @Test
  void prefilterAndPostfilterFromSparkMatchLance() {
    float[] q = query(2);
    String filter = "tenant_id >= 10";
    List<Row> post =
        LanceVectorSearch.search(
                spark,
                dir.toString(),
                VectorQuery.builder("vector")
                    .vector(q)
                    .k(10)
                    .useIndex(false)
                    .metric("cosine")
                    .filter(filter)
                    .columns("id")
                    .build())
            .collectAsList();
    assertSameAsLance(
        post,
        LanceOracle.nearest(
            allocator, dir, q, 10, null, null, DistanceType.Cosine, false, filter, false));
    assertThat(post.size()).isLessThan(10);
    List<Row> pre =
        LanceVectorSearch.search(
                spark,
                dir.toString(),
                VectorQuery.builder("vector")
                    .vector(q)
                    .k(10)
                    .useIndex(false)
                    .metric("cosine")
                    .filter(filter)
                    .prefilter(true)
                    .columns("id")
                    .build())
            .collectAsList();
    assertSameAsLance(
        pre,
        LanceOracle.nearest(
            allocator, dir, q, 10, null, null, DistanceType.Cosine, false, filter, true));
    assertThat(pre).hasSize(10);
  }

  @Test
  void sqlTableValuedFunctionWithNamedArguments() {
    float[] q = query(3);
    String array = "array(" + toSql(q) + ")";
    Dataset<Row> df =
        spark.sql(
            "SELECT * FROM lance_vector_search('"
                + dir
                + "', column => 'vector', q => "
                + array
                + ", k => 5, use_index => false, columns => array('id'), with_row_id => true)");
    List<Row> rows = df.collectAsList();
    assertSameAsLance(
        rows, LanceOracle.nearest(allocator, dir, q, 5, null, null, null, false, null, false));
    assertThat(Arrays.asList(df.columns())).containsExactly("id", "_distance", "_rowid");
  }

  /**
   * lance-spark's VECTOR_SEARCH and argument names run the same search (issue: lance-spark names).
   */
  @Test
  void vectorSearchUnderLanceSparkNames() {
    float[] q = query(7);
    String array = "array(" + toSql(q) + ")";
    Dataset<Row> named =
        spark.sql(
            "SELECT * FROM VECTOR_SEARCH(table => '"
                + dir
                + "', query_vector => "
                + array
                + ", vector_column => 'vector', num_results => 6, distance_type => 'cosine', columns => array('id'), "
                + "filter => 'tenant_id >= 10', prefilter => true, with_row_id => true)");
    assertThat(Arrays.asList(named.columns())).containsExactly("id", "_distance", "_rowid");
    assertSameAsLance(
        named.collectAsList(),
        LanceOracle.nearest(
            allocator, dir, q, 6, null, null, DistanceType.Cosine, false, "tenant_id >= 10", true));

    // positional (table, query_vector, num_results), default column "vector", every column
    Dataset<Row> positional =
        spark.sql("SELECT * FROM vector_search('" + dir + "', " + array + ", 4)");
    assertThat(Arrays.asList(positional.columns()))
        .contains("id", "tenant_id", "vector", "_distance");
    assertSameAsLance(
        positional.collectAsList(),
        LanceOracle.nearest(allocator, dir, q, 4, null, null, null, false, null, false));
    Dataset<Row> star =
        spark.sql(
            "SELECT * FROM VECTOR_SEARCH(table => '"
                + dir
                + "', query_vector => "
                + array
                + ", limit => 4, columns => array('*'))");
    assertThat(star.columns()).isEqualTo(positional.columns());

    // lower_bound / upper_bound are Lance's distance range: lower inclusive, upper exclusive
    List<LanceOracle.Hit> exact =
        LanceOracle.nearest(allocator, dir, q, 20, null, null, null, false, null, false);
    float lower = exact.get(3).distance();
    float upper = exact.get(9).distance();
    List<Row> ranged =
        spark
            .sql(
                "SELECT id, _distance FROM VECTOR_SEARCH(table => '"
                    + dir
                    + "', query_vector => "
                    + array
                    + ", k => 20, lower_bound => "
                    + lower
                    + ", upper_bound => "
                    + upper
                    + ")")
            .collectAsList();
    assertThat(ranged)
        .extracting(r -> r.getLong(0))
        .containsExactlyElementsOf(exact.subList(3, 9).stream().map(LanceOracle.Hit::id).toList());
  }

  @Test
  void vectorSearchBypassVectorIndexSearchesExactly() throws Exception {
    Path indexed = Files.createTempDirectory("spark-search-indexed");
    LanceOracle.write(allocator, indexed, 0, 3000, DIM, 9, WriteParams.WriteMode.CREATE, 3000);
    LanceOracle.createIvfPq(allocator, indexed, "vector", 8, 4);
    float[] q = query(8);
    String call =
        "SELECT id, _distance FROM VECTOR_SEARCH(table => '"
            + indexed
            + "', query_vector => array("
            + toSql(q)
            + "), num_results => 5, nprobes => 1, bypass_vector_index => ";
    List<LanceOracle.Hit> exact =
        LanceOracle.nearest(allocator, indexed, q, 5, null, null, null, false, null, false);
    assertSameAsLance(spark.sql(call + "true)").collectAsList(), exact);
    // through the index (one partition, PQ distances without refine) the answer is approximate
    List<Row> approximate = spark.sql(call + "false)").collectAsList();
    assertThat(approximate)
        .extracting(r -> r.getFloat(1))
        .isNotEqualTo(exact.stream().map(LanceOracle.Hit::distance).toList());
  }

  @Test
  void vectorSearchArgumentErrorsNameTheArgument() {
    String start =
        "SELECT * FROM VECTOR_SEARCH(table => '"
            + dir
            + "', query_vector => array("
            + toSql(query(9))
            + "), ";
    assertThatThrownBy(() -> spark.sql(start + "num_result => 3)").collect())
        .hasMessageContaining("unknown argument \"num_result\"")
        .hasMessageContaining("Did you mean \"num_results\"?");
    assertThatThrownBy(() -> spark.sql(start + "num_results => 3, k => 4)").collect())
        .hasMessageContaining("\"num_results\" and \"k\" are the same parameter");
    assertThatThrownBy(() -> spark.sql(start + "offset => 2)").collect())
        .hasMessageContaining("offset is not supported")
        .hasMessageContaining("LIMIT n OFFSET m");
    assertThatThrownBy(() -> spark.sql(start + "bypass_vector_index => 'yes')").collect())
        .hasMessageContaining("bypass_vector_index must be true or false");
    assertThatThrownBy(
            () ->
                spark
                    .sql(
                        "SELECT * FROM lance_vector_search('"
                            + dir
                            + "', column => 'vector', "
                            + "q => array("
                            + toSql(query(9))
                            + "), nprobe => 3)")
                    .collect())
        .hasMessageContaining("Did you mean \"nprobes\"?");
  }

  @Test
  void batchQueriesAreKeyedByQueryIndex() {
    float[] a = query(4);
    float[] b = query(5);
    List<Row> rows =
        LanceVectorSearch.search(
                spark,
                dir.toString(),
                VectorQuery.builder("vector")
                    .vectors(a, b)
                    .k(3)
                    .useIndex(false)
                    .columns("id")
                    .build())
            .collectAsList();
    assertThat(rows).hasSize(6);
    assertThat(rows).extracting(r -> r.getInt(0)).containsExactly(0, 0, 0, 1, 1, 1);
    assertSameAsLance(
        rows.subList(0, 3),
        LanceOracle.nearest(allocator, dir, a, 3, null, null, null, false, null, false));
    assertSameAsLance(
        rows.subList(3, 6),
        LanceOracle.nearest(allocator, dir, b, 3, null, null, null, false, null, false));
  }

  @Test
  void explainShowsTheEnginePlanAndPartitionMapping() {
    VectorQuery query = VectorQuery.builder("vector").vector(query(6)).k(3).useIndex(false).build();
    String text = LanceVectorSearch.explain(spark, dir.toString(), query);
    assertThat(text)
        .contains("LanceVectorSearch[")
        .contains("partitions=4")
        .contains("partition 0 -> flat-0 fragments=[0]")
        .contains("FlatKnn: unit=flat-3, fragments=[3]");
    Dataset<Row> df = LanceVectorSearch.search(spark, dir.toString(), query);
    String plan =
        df.queryExecution()
            .explainString(org.apache.spark.sql.execution.ExplainMode.fromString("simple"));
    assertThat(plan).contains("LanceVectorSearch[");
  }

  static String toSql(float[] q) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < q.length; i++) {
      if (i > 0) {
        sb.append(", ");
      }
      sb.append("CAST(").append(q[i]).append(" AS FLOAT)");
    }
    return sb.toString();
  }
}
