package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.query.VectorSearch;
import dev.lancelot.engine.query.VectorSearchResult;
import dev.lancelot.engine.testing.ClusteredData;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.testing.Rows;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.lance.WriteParams;
import org.lance.index.DistanceType;
import org.lance.index.IndexParams;
import org.lance.index.vector.VectorIndexParams;

/**
 * An IVF_RQ index lance-core builds, searched from Spark: one partition per index segment and per
 * unindexed fragment, and the driver's merge returns the rows and RaBitQ distance estimates of the
 * engine's own search, at nprobes below the partition count and with refine. And one built from
 * Spark ({@code CALL lance.system.create_index(..., index_type => 'IVF_RQ', num_bits => 2)}, then
 * {@code optimize_index}): lance-core lists it as IVF_RQ with its {@code num_bits} and answers with
 * the rows and estimates of the engine's search.
 */
class SparkIvfRqSearchTest extends SharedSpark {
  static final int DIM = 16;
  static Path dir;

  @BeforeAll
  static void build() throws Exception {
    dir = Files.createTempDirectory("spark-ivf-rq").resolve("rq.lance");
    ClusteredData.write(allocator, dir, 0, 2000, DIM, 8, 5, WriteParams.WriteMode.CREATE, 500);
    try (org.lance.Dataset ds = LanceOracle.open(allocator, dir)) {
      ds.createIndex(
          List.of("vector"),
          org.lance.index.IndexType.IVF_RQ,
          Optional.of("vector_idx"),
          IndexParams.builder()
              .setVectorIndexParams(VectorIndexParams.ivfRq(4, (byte) 1, DistanceType.L2))
              .build(),
          true);
    }
    ClusteredData.write(allocator, dir, 2000, 300, DIM, 8, 6, WriteParams.WriteMode.APPEND, 100);
  }

  static List<Row> spark(float[] q, String settings) {
    return SharedSpark.spark
        .sql(
            "SELECT id, _distance FROM lance_vector_search('"
                + dir
                + "', column => 'vector', q => array("
                + SparkVectorSearchTest.toSql(q)
                + "), k => 10"
                + settings
                + ")")
        .collectAsList();
  }

  static List<List<Object>> engine(float[] q, VectorQuery.Builder b) {
    try (Dataset ds = Dataset.open(dir.toString());
        VectorSearchResult r = VectorSearch.search(ds, b.vector(q).k(10).columns("id").build())) {
      return Rows.of(r.rows());
    }
  }

  @Test
  void sparkPartitionsAnswerAsTheEngine() {
    float[][] queries = ClusteredData.queries(4, DIM, 8, 5, 17);
    String explain =
        SharedSpark.spark
            .sql(
                "EXPLAIN SELECT id FROM lance_vector_search('"
                    + dir
                    + "', column => 'vector', q => array("
                    + SparkVectorSearchTest.toSql(queries[0])
                    + "), k => 10, nprobes => 2)")
            .collectAsList()
            .get(0)
            .getString(0);
    assertThat(explain).contains("IVF_RQ");
    for (float[] q : queries) {
      for (int refine : new int[] {0, 4}) {
        String settings = ", nprobes => 2" + (refine > 0 ? ", refine_factor => " + refine : "");
        VectorQuery.Builder b = VectorQuery.builder("vector").nprobes(2);
        if (refine > 0) {
          b = b.refineFactor(refine);
        }
        List<List<Object>> expected = engine(q, b);
        List<Row> got = spark(q, settings);
        assertThat(got).hasSize(expected.size()).hasSize(10);
        for (int i = 0; i < got.size(); i++) {
          assertThat(got.get(i).getLong(0)).isEqualTo((Long) expected.get(i).get(0));
          assertThat(got.get(i).getFloat(1))
              .isCloseTo((Float) expected.get(i).get(1), within(1e-5f));
        }
      }
    }
  }

  @Test
  void callBuildsAnIvfRqIndexThatLanceSearches() throws Exception {
    Path built = Files.createTempDirectory("spark-ivf-rq-built").resolve("rq.lance");
    ClusteredData.write(allocator, built, 0, 2000, DIM, 8, 5, WriteParams.WriteMode.CREATE, 500);
    Row created =
        SharedSpark.spark
            .sql(
                "CALL lance.system.create_index(table => '"
                    + built
                    + "', column => 'vector', index_type => 'IVF_RQ', num_bits => 2,"
                    + " num_partitions => 4)")
            .collectAsList()
            .get(0);
    assertThat(created.getString(created.fieldIndex("index_type"))).isEqualTo("IVF_RQ");
    assertThat(created.getLong(created.fieldIndex("indexed_rows"))).isEqualTo(2000);
    ClusteredData.write(allocator, built, 2000, 300, DIM, 8, 6, WriteParams.WriteMode.APPEND, 100);
    Row optimized =
        SharedSpark.spark
            .sql("CALL lance.system.optimize_index(table => '" + built + "', name => 'vector_idx')")
            .collectAsList()
            .get(0);
    assertThat(optimized.getInt(optimized.fieldIndex("segments"))).isEqualTo(2);
    assertThat(optimized.getLong(optimized.fieldIndex("unindexed_rows"))).isZero();
    try (org.lance.Dataset lance = LanceOracle.open(allocator, built)) {
      var described = lance.describeIndices();
      assertThat(described).hasSize(1);
      assertThat(described.get(0).getIndexType()).isEqualTo("IVF_RQ");
      assertThat(described.get(0).getDetailsJson()).contains("\"num_bits\":2");
    }
    try (Dataset ds = Dataset.open(built.toString())) {
      for (float[] q : ClusteredData.queries(4, DIM, 8, 5, 17)) {
        List<List<Object>> ours;
        try (VectorSearchResult r =
            VectorSearch.search(
                ds,
                VectorQuery.builder("vector").vector(q).k(10).nprobes(2).columns("id").build())) {
          ours = Rows.of(r.rows());
        }
        List<LanceOracle.Hit> theirs =
            LanceOracle.nearest(allocator, built, q, 10, 2, null, null, true, null, false);
        assertThat(theirs).hasSize(ours.size());
        for (int i = 0; i < ours.size(); i++) {
          float d = (Float) ours.get(i).get(1);
          assertThat(theirs.get(i).distance())
              .as("rank %d: ours %s, Lance's %s", i, ours, theirs)
              .isCloseTo(d, within(1e-4f * Math.max(1f, Math.abs(d))));
        }
      }
    }
  }
}
