package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.scalar.BTreeBuildParams;
import dev.lancelot.engine.index.scalar.BTreeIndexBuilder;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.query.VectorSearch;
import dev.lancelot.engine.query.VectorSearchResult;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.ClusteredData;
import dev.lancelot.engine.testing.Rows;
import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.spark.search.LanceVectorSearch;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * SPEC S3, S4 and S6 on indexed data: a dataset with two fragments under an IVF_HNSW_SQ index
 * (cosine), a BTree on tenant_id and a fragment appended after both. Spark runs one partition per
 * unit and merges on the driver; its answers equal the engine's local executor on the same plan
 * (rows, order and distances), for the reference query shape, a postfilter and a batch.
 */
class SparkAnnSearchTest extends SharedSpark {
  static final int DIM = 16;
  static Path dir;
  static float[][] queries;

  @BeforeAll
  static void build() throws Exception {
    dir = Files.createTempDirectory("spark-ann");
    append(0, 3000, WriteMode.CREATE);
    try (Dataset ds = Dataset.open(dir.toString())) {
      VectorIndexes.create(
              ds,
              "vector",
              VectorIndexSpec.of(IndexType.IVF_HNSW_SQ, DistanceMetric.COSINE).withNumPartitions(6))
          .close();
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      BTreeIndexBuilder.build(ds, BTreeBuildParams.of("tenant_id")).close();
    }
    append(3000, 500, WriteMode.APPEND);
    queries = ClusteredData.queries(3, DIM, 30, 3, 11);
  }

  static void append(long first, int rows, WriteMode mode) throws Exception {
    try (VectorSchemaRoot b = ClusteredData.generate(allocator, first, rows, DIM, 30, 3);
        ArrowReader r = ArrowStreams.readerOf(allocator, List.of(b))) {
      Dataset.write(dir.toString(), r, WriteOptions.of(mode).withMaxRowsPerFile(1500)).close();
    }
  }

  /** (query_index or 0, id, _distance) rows of the local executor. */
  static List<Object[]> local(VectorQuery q) {
    try (Dataset ds = Dataset.open(dir.toString());
        VectorSearchResult r = VectorSearch.search(ds, q)) {
      List<String> names = r.rows().getSchema().getFields().stream().map(Field::getName).toList();
      List<Object[]> out = new ArrayList<>();
      for (List<Object> row : Rows.of(r.rows())) {
        int qi =
            names.contains("query_index") ? (Integer) row.get(names.indexOf("query_index")) : 0;
        out.add(
            new Object[] {qi, row.get(names.indexOf("id")), row.get(names.indexOf("_distance"))});
      }
      return out;
    }
  }

  static List<Row> assertSameAsLocal(VectorQuery q) {
    List<Row> spark =
        LanceVectorSearch.search(SharedSpark.spark, dir.toString(), q).collectAsList();
    List<Object[]> local = local(q);
    assertThat(spark).hasSameSizeAs(local);
    for (int i = 0; i < local.size(); i++) {
      Row row = spark.get(i);
      int qi = q.isBatch() ? row.getInt(row.fieldIndex("query_index")) : 0;
      assertThat(qi).isEqualTo(local.get(i)[0]);
      assertThat(row.getLong(row.fieldIndex("id"))).isEqualTo(local.get(i)[1]);
      assertThat(row.getFloat(row.fieldIndex("_distance")))
          .isCloseTo((Float) local.get(i)[2], within(1e-6f));
    }
    return spark;
  }

  @Test
  void referenceQueryShapeEqualsTheLocalExecutor() {
    for (float[] q : queries) {
      VectorQuery query =
          VectorQuery.builder("vector")
              .vector(q)
              .k(3)
              .metric(DistanceMetric.COSINE)
              .minimumNprobes(2)
              .maximumNprobes(4)
              .refineFactor(4)
              .ef(64)
              .filter("tenant_id < 30")
              .prefilter(true)
              .columns("id", "tenant_id")
              .build();
      assertThat(assertSameAsLocal(query))
          .hasSize(3)
          .allMatch(r -> r.getInt(r.fieldIndex("tenant_id")) < 30);
    }
  }

  @Test
  void postfilterAndFastSearchEqualTheLocalExecutor() {
    assertSameAsLocal(
        VectorQuery.builder("vector")
            .vector(queries[0])
            .k(10)
            .filter("tenant_id < 10")
            .columns("id")
            .build());
    assertSameAsLocal(
        VectorQuery.builder("vector")
            .vector(queries[1])
            .k(10)
            .fastSearch(true)
            .columns("id")
            .build());
  }

  @Test
  void batchOfQueriesEqualsTheLocalExecutor() {
    assertSameAsLocal(
        VectorQuery.builder("vector").vectors(queries).k(5).nprobes(2).columns("id").build());
  }

  @Test
  void eachIndexSegmentAndUnindexedFragmentIsOnePartition() {
    String explain =
        LanceVectorSearch.explain(
            spark,
            dir.toString(),
            VectorQuery.builder("vector").vector(queries[0]).k(3).columns("id").build());
    assertThat(explain)
        .contains("partitions=2")
        .contains("partition 0 -> ann-0 fragments=[0, 1]")
        .contains("partition 1 -> flat-1 fragments=[2]")
        .contains("type=IVF_HNSW_SQ");
  }

  /**
   * Recall computed by the engine's local executor: search vs use_index=false, per query vector.
   */
  static double localRecall(VectorQuery q) {
    List<Object[]> got = local(q);
    List<Object[]> exact = local(q.toBuilder().useIndex(false).fastSearch(false).build());
    double sum = 0;
    for (int qi = 0; qi < q.vectors().length; qi++) {
      final int i = qi;
      java.util.Set<Object> g = new java.util.HashSet<>();
      got.stream().filter(r -> (Integer) r[0] == i).forEach(r -> g.add(r[1]));
      java.util.Set<Object> e = new java.util.HashSet<>();
      exact.stream().filter(r -> (Integer) r[0] == i).forEach(r -> e.add(r[1]));
      java.util.Set<Object> hit = new java.util.HashSet<>(g);
      hit.retainAll(e);
      sum += e.isEmpty() ? (g.isEmpty() ? 1 : 0) : (double) hit.size() / Math.min(q.k(), e.size());
    }
    return sum / q.vectors().length;
  }

  @Test
  void e1RecallAgainstExactSearchIsOneCall() {
    VectorQuery reference =
        VectorQuery.builder("vector")
            .vectors(queries)
            .k(5)
            .metric(DistanceMetric.COSINE)
            .nprobes(1)
            .ef(10)
            .filter("tenant_id < 30")
            .prefilter(true)
            .columns("id")
            .build();
    dev.lancelot.spark.search.SparkRecall r =
        LanceVectorSearch.recall(spark, dir.toString(), reference);
    assertThat(r.queries()).isEqualTo(3);
    assertThat(r.version()).isEqualTo(4);
    assertThat(r.meanRows()).isEqualTo(5.0);
    assertThat(r.recall()).isCloseTo(localRecall(reference), within(1e-9)).isBetween(0.0, 1.0);
    VectorQuery exact =
        VectorQuery.builder("vector").vector(queries[0]).k(5).useIndex(false).columns("id").build();
    assertThat(LanceVectorSearch.recall(spark, dir.toString(), exact).recall()).isEqualTo(1.0);
  }

  /**
   * E1 with Q3 from Spark: a query that leaves the metric to the cosine index is judged against
   * exact cosine search — the recall equals a brute force computed here in cosine, unfiltered and
   * prefiltered, and the result names the metric.
   */
  @Test
  void e1RecallWithTheMetricLeftToTheIndexIsAgainstCosineExactSearch() {
    dev.lancelot.engine.testing.BruteForce truth =
        dev.lancelot.engine.testing.BruteForce.of(dir.toString());
    float[][] qs = ClusteredData.queries(8, DIM, 30, 3, 23);
    for (String filter : new String[] {null, "tenant_id < 30"}) {
      VectorQuery.Builder b =
          VectorQuery.builder("vector").vectors(qs).k(10).nprobes(1).columns("id");
      if (filter != null) {
        b.filter(filter).prefilter(true);
      }
      VectorQuery q = b.build();
      dev.lancelot.spark.search.SparkRecall r = LanceVectorSearch.recall(spark, dir.toString(), q);
      assertThat(r.metric()).isEqualTo("cosine");
      List<Object[]> got = local(q);
      double cosine = 0;
      double l2 = 0;
      for (int i = 0; i < qs.length; i++) {
        int qi = i;
        java.util.Set<Long> ids = new java.util.HashSet<>();
        got.stream().filter(row -> (Integer) row[0] == qi).forEach(row -> ids.add((Long) row[1]));
        java.util.function.IntPredicate tenants =
            filter == null ? t -> true : t -> t >= 0 && t < 30;
        cosine +=
            dev.lancelot.engine.testing.BruteForce.recall(
                ids, truth.nearest(qs[i], 10, "cosine", tenants), 10);
        l2 +=
            dev.lancelot.engine.testing.BruteForce.recall(
                ids, truth.nearest(qs[i], 10, "l2", tenants), 10);
      }
      assertThat(r.recall()).as("filter %s", filter).isCloseTo(cosine / qs.length, within(0.013));
      assertThat(Math.abs(l2 - cosine) / qs.length)
          .as("l2 truth differs, filter %s", filter)
          .isGreaterThan(0.02);
    }
  }
}
