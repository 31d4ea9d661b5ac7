package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.scalar.BTreeIndexStatistics;
import dev.lancelot.engine.index.scalar.ScalarIndexQuery;
import dev.lancelot.engine.index.vector.VectorIndexDescription;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.internal.query.DistributedSearch;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.query.VectorSearch;
import dev.lancelot.engine.query.VectorSearchResult;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.ClusteredData;
import dev.lancelot.engine.testing.Rows;
import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.spark.index.LanceIndexBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.spark.SparkJobInfo;
import org.apache.spark.SparkStageInfo;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * SPEC S7: a vector index created from Spark (model trained on the driver, each group of fragments'
 * segment written by one executor task, all committed by the driver in one version) is, with one
 * group, the index a local build with the same spec writes: same description and the same answers,
 * rows and distances; optimize from Spark adds the same delta segment for appended fragments. With
 * several groups, every segment shares the model, the driver only receives manifest entries (task
 * result sizes do not grow with the rows), the answers at a fixed nprobes are the single segment's,
 * and Lance 7 searches the multi-segment index.
 */
class SparkIndexBuildTest extends SharedSpark {
  static final int DIM = 16;

  static void write(Path dir, long first, int rows, WriteMode mode) throws Exception {
    try (VectorSchemaRoot b = ClusteredData.generate(allocator, first, rows, DIM, 20, 5);
        ArrowReader r = ArrowStreams.readerOf(allocator, List.of(b))) {
      Dataset.write(dir.toString(), r, WriteOptions.of(mode).withMaxRowsPerFile(1000)).close();
    }
  }

  /** (id, _distance) of the answers to a few queries, in order. */
  static List<List<Object>> answers(Path dir) {
    List<List<Object>> out = new ArrayList<>();
    try (Dataset ds = Dataset.open(dir.toString())) {
      for (float[] q : ClusteredData.queries(4, DIM, 20, 5, 9)) {
        VectorQuery query =
            VectorQuery.builder("vector").vector(q).k(10).nprobes(2).columns("id").build();
        try (VectorSearchResult r = VectorSearch.search(ds, query)) {
          out.addAll(Rows.of(r.rows()));
        }
      }
    }
    return out;
  }

  static VectorIndexDescription describe(Path dir) {
    try (Dataset ds = Dataset.open(dir.toString())) {
      return VectorIndexes.describe(ds, "vector_idx");
    }
  }

  /** Tasks run by the jobs of {@code group}. */
  static int tasksOf(String group) {
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    int tasks = 0;
    for (int job : jsc.statusTracker().getJobIdsForGroup(group)) {
      SparkJobInfo info = jsc.statusTracker().getJobInfo(job);
      for (int stage : info.stageIds()) {
        SparkStageInfo s = jsc.statusTracker().getStageInfo(stage);
        tasks += s == null ? 0 : s.numTasks();
      }
    }
    return tasks;
  }

  @ParameterizedTest
  @EnumSource(
      value = IndexType.class,
      names = {"IVF_PQ", "IVF_HNSW_SQ", "IVF_FLAT", "IVF_RQ"})
  void aSparkBuiltIndexIsTheLocallyBuiltIndex(IndexType type) throws Exception {
    Path viaSpark = Files.createTempDirectory("spark-index");
    Path local = Files.createTempDirectory("local-index");
    write(viaSpark, 0, 3000, WriteMode.CREATE);
    write(local, 0, 3000, WriteMode.CREATE);
    VectorIndexSpec spec =
        VectorIndexSpec.of(type, DistanceMetric.L2).withNumPartitions(4).withSeed(17);
    if (type == IndexType.IVF_PQ) {
      spec = spec.withNumSubVectors(4);
    }

    String group = "build-" + type;
    spark.sparkContext().setJobGroup(group, "index build", false);
    long version;
    try {
      version = LanceIndexBuilder.createIndex(spark, viaSpark.toString(), "vector", spec);
    } finally {
      spark.sparkContext().clearJobGroup();
    }
    // 3,000 rows make one segment: one task writes it (graphs included)
    assertThat(tasksOf(group)).isEqualTo(1);
    try (Dataset ds = Dataset.open(local.toString())) {
      VectorIndexes.create(ds, "vector", spec).close();
    }
    assertThat(version).isEqualTo(2);
    VectorIndexDescription d = describe(viaSpark);
    assertThat(d.segments()).hasSize(1);
    assertThat(d.indexedFragments()).containsExactly(0L, 1L, 2L);
    assertThat(d.indexedRows()).isEqualTo(3000);
    assertThat(d.segments().get(0).storedVectors())
        .isEqualTo(describe(local).segments().get(0).storedVectors());
    assertThat(answers(viaSpark)).isEqualTo(answers(local)).hasSize(40);

    // appended fragments: optimize from Spark adds the delta segment a local optimize adds
    write(viaSpark, 3000, 1500, WriteMode.APPEND);
    write(local, 3000, 1500, WriteMode.APPEND);
    long optimized = LanceIndexBuilder.optimize(spark, viaSpark.toString(), "vector_idx", false);
    try (Dataset ds = Dataset.open(local.toString())) {
      VectorIndexes.optimize(ds, "vector_idx", false).close();
    }
    assertThat(optimized).isEqualTo(4);
    d = describe(viaSpark);
    assertThat(d.segments()).hasSize(2);
    assertThat(d.unindexedFragments()).isEmpty();
    assertThat(d.segments().get(1).fragments()).containsExactly(3L, 4L);
    assertThat(answers(viaSpark)).isEqualTo(answers(local));
    // nothing left to index: the version stays
    assertThat(LanceIndexBuilder.optimize(spark, viaSpark.toString(), "vector_idx", false))
        .isEqualTo(4);

    // retrain: one new segment over every fragment, replacing both
    assertThat(LanceIndexBuilder.optimize(spark, viaSpark.toString(), "vector_idx", true))
        .isEqualTo(5);
    try (Dataset ds = Dataset.open(local.toString())) {
      VectorIndexes.optimize(ds, "vector_idx", true).close();
    }
    d = describe(viaSpark);
    assertThat(d.segments()).hasSize(1);
    assertThat(d.indexedFragments()).containsExactly(0L, 1L, 2L, 3L, 4L);
    assertThat(answers(viaSpark)).isEqualTo(answers(local));
  }

  @Test
  void callCreatesAndOptimizesAnIndex() throws Exception {
    Path dir = Files.createTempDirectory("sql-index");
    write(dir, 0, 2000, WriteMode.CREATE);
    Row created =
        spark
            .sql(
                "CALL lance.system.create_index(table => '"
                    + dir
                    + "', column => 'vector', "
                    + "index_type => 'ivf_sq', metric => 'cosine', num_partitions => 3, seed => 5)")
            .collectAsList()
            .get(0);
    assertThat(created.getString(created.fieldIndex("name"))).isEqualTo("vector_idx");
    assertThat(created.getString(created.fieldIndex("index_type"))).isEqualTo("IVF_SQ");
    assertThat(created.getString(created.fieldIndex("metric"))).isEqualTo("cosine");
    assertThat(created.getLong(created.fieldIndex("version"))).isEqualTo(2);
    assertThat(created.getInt(created.fieldIndex("indexed_fragments"))).isEqualTo(2);
    assertThat(created.getLong(created.fieldIndex("indexed_rows"))).isEqualTo(2000);
    // the same index as the Java API builds from the same parameters
    Path local = Files.createTempDirectory("sql-index-local");
    write(local, 0, 2000, WriteMode.CREATE);
    try (Dataset ds = Dataset.open(local.toString())) {
      VectorIndexes.create(
              ds,
              "vector",
              VectorIndexSpec.of(IndexType.IVF_SQ, DistanceMetric.COSINE)
                  .withNumPartitions(3)
                  .withSeed(5))
          .close();
    }
    assertThat(answers(dir)).isEqualTo(answers(local));

    write(dir, 2000, 500, WriteMode.APPEND);
    Row optimized =
        spark
            .sql("CALL lance.system.optimize_index(table => '" + dir + "', name => 'vector_idx')")
            .collectAsList()
            .get(0);
    assertThat(optimized.getInt(optimized.fieldIndex("segments"))).isEqualTo(2);
    assertThat(optimized.getLong(optimized.fieldIndex("unindexed_rows"))).isZero();
    assertThat(optimized.getLong(optimized.fieldIndex("version"))).isEqualTo(4);
  }

  @Test
  void callBuildsABTreeInOneSparkTaskPerGroupOfFragments() throws Exception {
    Path dir = Files.createTempDirectory("sql-btree");
    write(dir, 0, 3000, WriteMode.CREATE); // three fragments of 1,000 rows
    spark.conf().set(LanceIndexBuilder.ROWS_PER_SEGMENT_CONF, "2000");
    spark.sparkContext().setJobGroup("btree-build", "BTree build", false);
    Row created;
    try {
      created =
          spark
              .sql(
                  "CALL lance.system.create_scalar_index(table => '"
                      + dir
                      + "', column => 'tenant_id')")
              .first();
    } finally {
      spark.sparkContext().clearJobGroup();
      spark.conf().unset(LanceIndexBuilder.ROWS_PER_SEGMENT_CONF);
    }
    // fragments 0 and 1 in one segment, fragment 2 in another: one task each
    assertThat(tasksOf("btree-build")).isEqualTo(2);
    assertThat(created.getLong(created.fieldIndex("indexed_rows"))).isEqualTo(3000);
    assertThat(created.getLong(created.fieldIndex("unindexed_rows"))).isZero();
    try (Dataset ds = Dataset.open(dir.toString())) {
      BTreeIndexStatistics stats = BTreeIndexStatistics.of(ds, "tenant_id_idx");
      assertThat(stats.segments()).isEqualTo(2);
      for (String filter :
          List.of("tenant_id = 3", "tenant_id < 2", "tenant_id IN (1, 4)", "tenant_id IS NULL")) {
        ScalarIndexQuery q = ScalarIndexQuery.plan(ds, filter);
        assertThat(q.isExact()).as(filter).isTrue();
        assertThat(q.uncoveredFragments()).as(filter).isEmpty();
        assertThat(q.evaluate().withoutDeletedRows(ds).count())
            .as(filter)
            .isEqualTo(ds.newScan().filter(filter).countRows());
      }
    }

    // optimize_index of the BTree: one more segment over the appended fragment only, in a task
    write(dir, 3000, 1000, WriteMode.APPEND);
    spark.sparkContext().setJobGroup("btree-optimize", "BTree optimize", false);
    Row optimized;
    try {
      optimized =
          spark
              .sql(
                  "CALL lance.system.optimize_index(table => '"
                      + dir
                      + "', name => 'tenant_id_idx')")
              .first();
    } finally {
      spark.sparkContext().clearJobGroup();
    }
    assertThat(tasksOf("btree-optimize")).isEqualTo(1);
    assertThat(optimized.getString(optimized.fieldIndex("index_type"))).isEqualTo("BTREE");
    assertThat(optimized.isNullAt(optimized.fieldIndex("metric"))).isTrue();
    assertThat(optimized.getInt(optimized.fieldIndex("segments"))).isEqualTo(3);
    assertThat(optimized.getLong(optimized.fieldIndex("indexed_rows"))).isEqualTo(4000);
    assertThat(optimized.getLong(optimized.fieldIndex("unindexed_rows"))).isZero();
    try (Dataset ds = Dataset.open(dir.toString())) {
      ScalarIndexQuery q = ScalarIndexQuery.plan(ds, "tenant_id = 3");
      assertThat(q.uncoveredFragments()).isEmpty();
      assertThat(q.evaluate().withoutDeletedRows(ds).count())
          .isEqualTo(ds.newScan().filter("tenant_id = 3").countRows());
    }
    // retrain: rebuilt over every fragment, one segment per group
    spark.conf().set(LanceIndexBuilder.ROWS_PER_SEGMENT_CONF, "10000");
    try {
      Row rebuilt =
          spark
              .sql(
                  "CALL lance.system.optimize_index(table => '"
                      + dir
                      + "', name => 'tenant_id_idx', retrain => true)")
              .first();
      assertThat(rebuilt.getInt(rebuilt.fieldIndex("segments"))).isEqualTo(1);
      assertThat(rebuilt.getLong(rebuilt.fieldIndex("indexed_rows"))).isEqualTo(4000);
    } finally {
      spark.conf().unset(LanceIndexBuilder.ROWS_PER_SEGMENT_CONF);
    }
  }

  /** Largest task result of the jobs run by {@code action}, in bytes (Spark's own task metrics). */
  static long largestTaskResult(Runnable action) throws Exception {
    java.util.concurrent.atomic.AtomicLong max = new java.util.concurrent.atomic.AtomicLong();
    java.util.concurrent.atomic.AtomicInteger tasks =
        new java.util.concurrent.atomic.AtomicInteger();
    org.apache.spark.scheduler.SparkListener listener =
        new org.apache.spark.scheduler.SparkListener() {
          @Override
          public void onTaskEnd(org.apache.spark.scheduler.SparkListenerTaskEnd end) {
            tasks.incrementAndGet();
            max.accumulateAndGet(end.taskMetrics().resultSize(), Math::max);
          }
        };
    listening(listener, action);
    assertThat(tasks.get()).isPositive();
    return max.get();
  }

  @Test
  void executorsWriteOneSegmentPerGroupOfFragmentsAndTheDriverOnlyCommits() throws Exception {
    Path small = Files.createTempDirectory("segments-small");
    Path large = Files.createTempDirectory("segments-large");
    Path single = Files.createTempDirectory("segments-single");
    write(small, 0, 3000, WriteMode.CREATE);
    write(large, 0, 6000, WriteMode.CREATE);
    write(single, 0, 3000, WriteMode.CREATE);
    VectorIndexSpec spec =
        VectorIndexSpec.of(IndexType.IVF_FLAT, DistanceMetric.L2).withNumPartitions(4).withSeed(11);
    spark.conf().set(LanceIndexBuilder.ROWS_PER_SEGMENT_CONF, "1000");
    long smallResult;
    long largeResult;
    try {
      smallResult =
          largestTaskResult(
              () -> LanceIndexBuilder.createIndex(spark, small.toString(), "vector", spec));
      largeResult =
          largestTaskResult(
              () -> LanceIndexBuilder.createIndex(spark, large.toString(), "vector", spec));
    } finally {
      spark.conf().unset(LanceIndexBuilder.ROWS_PER_SEGMENT_CONF);
    }
    // what reaches the driver is a manifest entry per task, whatever the rows (IVF_FLAT stores
    // vectors)
    assertThat(largeResult).isLessThan(16 * 1024).isLessThan(smallResult + 1024);
    VectorIndexDescription d = describe(large);
    assertThat(d.segments()).hasSize(6);
    assertThat(d.indexedRows()).isEqualTo(6000);
    assertThat(d.unindexedFragments()).isEmpty();
    for (int i = 0; i < 6; i++) {
      assertThat(d.segments().get(i).fragments()).containsExactly((long) i);
    }
    // one model for all segments: at a fixed nprobes the answers are the single segment's
    try (Dataset ds = Dataset.open(single.toString())) {
      VectorIndexes.create(ds, "vector", spec).close();
    }
    assertThat(describe(small).segments()).hasSize(3);
    assertThat(answers(small)).isEqualTo(answers(single));
    // each segment is one search unit
    try (Dataset ds = Dataset.open(small.toString())) {
      assertThat(
              DistributedSearch.plan(
                      ds, VectorQuery.builder("vector").vector(new float[DIM]).k(3).build())
                  .units())
          .hasSize(3);
    }
    // Lance 7 searches the multi-segment index: with every partition probed, IVF_FLAT is exact
    for (float[] q : ClusteredData.queries(3, DIM, 20, 5, 13)) {
      List<Long> lance =
          dev.lancelot.engine.testing.LanceOracle.nearest(
                  allocator, large, q, 10, 4, null, null, true, null, false)
              .stream()
              .map(dev.lancelot.engine.testing.LanceOracle.Hit::id)
              .toList();
      List<Long> exact =
          dev.lancelot.engine.testing.LanceOracle.nearest(
                  allocator, large, q, 10, null, null, null, false, null, false)
              .stream()
              .map(dev.lancelot.engine.testing.LanceOracle.Hit::id)
              .toList();
      assertThat(lance).isEqualTo(exact).hasSize(10);
    }
  }

  @Test
  void callRefusesBadParametersNamingThem() throws Exception {
    Path dir = Files.createTempDirectory("sql-index-bad");
    write(dir, 0, 1000, WriteMode.CREATE);
    String call = "CALL lance.system.create_index(table => '" + dir + "', column => 'vector', ";
    assertThatThrownBy(
            () -> spark.sql(call + "index_type => 'IVF_SQ', num_sub_vectors => 4)").collect())
        .hasMessageContaining("num_sub_vectors")
        .hasMessageContaining("does not apply");
    assertThatThrownBy(() -> spark.sql(call + "index_type => 'IVF_PQ', partitions => 4)").collect())
        .hasMessageContaining("unknown parameter \"partitions\"")
        .hasMessageContaining("num_partitions");
    assertThatThrownBy(
            () ->
                spark
                    .sql(
                        "CALL lance.system.create_index(table => '"
                            + dir
                            + "', index_type => "
                            + "'IVF_PQ')")
                    .collect())
        .hasMessageContaining("column")
        .hasMessageContaining("required");
    assertThatThrownBy(() -> spark.sql(call + "index_type => 'IVF_BOGUS')").collect())
        .hasMessageContaining("IVF_BOGUS");
    assertThatThrownBy(
            () ->
                spark
                    .sql(
                        "CALL lance.system.optimize_index(table => '"
                            + dir
                            + "', name => "
                            + "'missing_idx')")
                    .collect())
        .hasMessageContaining("missing_idx");
    // nothing was committed by the refused calls
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThat(ds.version()).isEqualTo(1);
    }
  }
}
