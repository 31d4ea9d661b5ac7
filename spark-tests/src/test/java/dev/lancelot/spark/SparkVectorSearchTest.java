package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;
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
    assertThat(rows).extracting(r -> r.getLong(r.fieldIndex("id")))
        .containsExactlyElementsOf(lance.stream().map(LanceOracle.Hit::id).toList());
    for (int i = 0; i < rows.size(); i++) {
      assertThat(rows.get(i).getFloat(rows.get(i).fieldIndex("_distance")))
          .isCloseTo(lance.get(i).distance(), within(1e-4f));
    }
  }

  @Test
  void globalTopKNotKPerPartition() {
    float[] q = query(1);
    Dataset<Row> df = LanceVectorSearch.search(spark, dir.toString(),
        VectorQuery.builder("vector").vector(q).k(10).useIndex(false).columns("id", "tenant_id").build());
    assertThat(df.rdd().getNumPartitions()).isGreaterThanOrEqualTo(1);
    List<Row> rows = df.collectAsList();
    assertThat(rows).hasSize(10);
    assertSameAsLance(rows, LanceOracle.nearest(allocator, dir, q, 10, null, null, null, false, null, false));
    assertThat(Arrays.asList(df.columns())).containsExactly("id", "tenant_id", "_distance");
  }

  @Test
  void prefilterAndPostfilterFromSparkMatchLance() {
    float[] q = query(2);
    String filter = "tenant_id >= 10";
    List<Row> post = LanceVectorSearch.search(spark, dir.toString(), VectorQuery.builder("vector").vector(q).k(10)
        .useIndex(false).metric("cosine").filter(filter).columns("id").build()).collectAsList();
    assertSameAsLance(post, LanceOracle.nearest(allocator, dir, q, 10, null, null, DistanceType.Cosine, false, filter,
        false));
    assertThat(post.size()).isLessThan(10);
    List<Row> pre = LanceVectorSearch.search(spark, dir.toString(), VectorQuery.builder("vector").vector(q).k(10)
        .useIndex(false).metric("cosine").filter(filter).prefilter(true).columns("id").build()).collectAsList();
    assertSameAsLance(pre, LanceOracle.nearest(allocator, dir, q, 10, null, null, DistanceType.Cosine, false, filter,
        true));
    assertThat(pre).hasSize(10);
  }

  @Test
  void sqlTableValuedFunctionWithNamedArguments() {
    float[] q = query(3);
    String array = "array(" + toSql(q) + ")";
    Dataset<Row> df = spark.sql("SELECT * FROM lance_vector_search('" + dir + "', column => 'vector', q => " + array
        + ", k => 5, use_index => false, columns => array('id'), with_row_id => true)");
    List<Row> rows = df.collectAsList();
    assertSameAsLance(rows, LanceOracle.nearest(allocator, dir, q, 5, null, null, null, false, null, false));
    assertThat(Arrays.asList(df.columns())).containsExactly("id", "_distance", "_rowid");
  }

  @Test
  void batchQueriesAreKeyedByQueryIndex() {
    float[] a = query(4);
    float[] b = query(5);
    List<Row> rows = LanceVectorSearch.search(spark, dir.toString(), VectorQuery.builder("vector").vectors(a, b)
        .k(3).useIndex(false).columns("id").build()).collectAsList();
    assertThat(rows).hasSize(6);
    assertThat(rows).extracting(r -> r.getInt(0)).containsExactly(0, 0, 0, 1, 1, 1);
    assertSameAsLance(rows.subList(0, 3), LanceOracle.nearest(allocator, dir, a, 3, null, null, null, false, null,
        false));
    assertSameAsLance(rows.subList(3, 6), LanceOracle.nearest(allocator, dir, b, 3, null, null, null, false, null,
        false));
  }

  @Test
  void explainShowsTheEnginePlanAndPartitionMapping() {
    VectorQuery query = VectorQuery.builder("vector").vector(query(6)).k(3).useIndex(false).build();
    String text = LanceVectorSearch.explain(spark, dir.toString(), query);
    assertThat(text).contains("LanceVectorSearch[").contains("partitions=4")
        .contains("partition 0 -> flat-0 fragments=[0]").contains("FlatKnn: unit=flat-3, fragments=[3]");
    Dataset<Row> df = LanceVectorSearch.search(spark, dir.toString(), query);
    String plan = df.queryExecution().explainString(org.apache.spark.sql.execution.ExplainMode.fromString("simple"));
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
