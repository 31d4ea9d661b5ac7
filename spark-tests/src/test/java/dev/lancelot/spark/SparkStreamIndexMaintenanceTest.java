package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.index.IndexStatistics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.ReadOptions;

/**
 * Index maintenance in the streaming sink (semantics S13): with {@code optimizeIndexEveryBatches}
 * or {@code optimizeIndexUnindexedRows} the sink optimizes the table's indexes after the batches
 * that are due, so the appended rows are indexed while the stream runs; lance-core sees the new
 * segments; the schedule survives a restart; bad values and batch writes are refused.
 */
class SparkStreamIndexMaintenanceTest extends SharedSpark {
  private static final StructType SCHEMA =
      new StructType()
          .add("id", DataTypes.LongType)
          .add("tenant", DataTypes.LongType)
          .add("vec", DataTypes.createArrayType(DataTypes.FloatType, false));

  /** One parquet file of rows {@code from..to-1}: one micro-batch with maxFilesPerTrigger 1. */
  private static void addInput(Path in, long from, long to) {
    spark
        .range(from, to)
        .selectExpr(
            "id",
            "id % 7 as tenant",
            "array(cast(sin(id) as float), cast(cos(id) as float), cast(id % 13 as float),"
                + " cast(id % 5 as float)) as vec")
        .coalesce(1)
        .write()
        .mode("append")
        .parquet(in.toString());
  }

  /** A table of 200 rows with an IVF_FLAT index on {@code vec} and a BTree on {@code tenant}. */
  private static String indexedTable(Path dir) {
    String uri = dir.resolve("events.lance").toString();
    spark
        .range(0, 200)
        .selectExpr(
            "id",
            "id % 7 as tenant",
            "array(cast(sin(id) as float), cast(cos(id) as float), cast(id % 13 as float),"
                + " cast(id % 5 as float)) as vec")
        .write()
        .format("lance")
        .option("vector.columns", "vec:4")
        .save(uri);
    spark.sql(
        "CALL lance.system.create_index(table => 'lance.`"
            + uri
            + "`', column => 'vec', index_type => 'IVF_FLAT', num_partitions => 2, name =>"
            + " 'vec_idx')");
    spark.sql(
        "CALL lance.system.create_scalar_index(table => 'lance.`"
            + uri
            + "`', column => 'tenant', index_type => 'BTREE', name => 'tenant_idx')");
    return uri;
  }

  private static void run(Path in, Path cp, String uri, Map<String, String> options)
      throws Exception {
    var writer =
        spark
            .readStream()
            .schema(SCHEMA)
            .option("maxFilesPerTrigger", "1")
            .parquet(in.toString())
            .writeStream()
            .format("lance")
            .option("checkpointLocation", cp.toString())
            .options(options)
            .trigger(Trigger.AvailableNow());
    StreamingQuery q = writer.start(uri);
    q.awaitTermination();
    assertThat(q.exception().isEmpty()).as("%s", q.exception()).isTrue();
  }

  private static long unindexedRows(String uri, String index) {
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(uri)) {
      return IndexStatistics.of(ds, index).unindexedRows();
    }
  }

  /** Each version's operation after {@code from}, oldest first. */
  private static List<String> operations(String uri, long from) {
    List<String> ops = new ArrayList<>();
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(uri)) {
      for (long v = from; v <= ds.version(); v++) {
        try (dev.lancelot.engine.Dataset at = ds.checkout(v)) {
          ops.add(at.operation());
        }
      }
    }
    return ops;
  }

  @Test
  void everyOtherBatchIndexesTheAppendedRows(@TempDir Path dir) throws Exception {
    String uri = indexedTable(dir);
    long before;
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(uri)) {
      before = ds.version();
    }
    Path in = dir.resolve("in");
    addInput(in, 200, 300);
    addInput(in, 300, 400);
    addInput(in, 400, 450);
    run(in, dir.resolve("cp"), uri, Map.of("optimizeIndexEveryBatches", "2"));

    // batch 0 appends, batch 1 appends and both indexes take batches 0 and 1, batch 2 appends
    assertThat(unindexedRows(uri, "vec_idx")).isEqualTo(50);
    assertThat(unindexedRows(uri, "tenant_idx")).isEqualTo(50);
    List<String> ops = operations(uri, before + 1);
    assertThat(ops).containsExactly("append", "append", "create index", "create index", "append");
    try (org.lance.Dataset lance =
        org.lance.Dataset.open(allocator, uri, new ReadOptions.Builder().build())) {
      assertThat(lance.countRows()).isEqualTo(450);
      assertThat(lance.listIndexes()).contains("vec_idx", "tenant_idx");
      for (String index : List.of("vec_idx", "tenant_idx")) {
        Map<String, Object> stats = lance.getIndexStatistics(index);
        assertThat(((Number) stats.get("num_unindexed_rows")).longValue()).isEqualTo(50);
        assertThat(((Number) stats.get("num_indexed_rows")).longValue()).isEqualTo(400);
      }
    }
    // the search still answers from every row: the nearest neighbour of row 420's vector is 420
    List<org.apache.spark.sql.Row> rows =
        spark
            .sql(
                "SELECT id FROM lance_vector_search('lance.`"
                    + uri
                    + "`', 'vec', array(cast(sin(420) as float), cast(cos(420) as float),"
                    + " cast(420 % 13 as float), cast(420 % 5 as float)), 1)")
            .collectAsList();
    assertThat(rows.get(0).getLong(0)).isEqualTo(420L);
  }

  @Test
  void anUnindexedRowThresholdOptimizesAcrossARestart(@TempDir Path dir) throws Exception {
    String uri = indexedTable(dir);
    Path in = dir.resolve("in");
    Path cp = dir.resolve("cp");
    Map<String, String> options = Map.of("optimizeIndexUnindexedRows", "150");
    addInput(in, 200, 300);
    run(in, cp, uri, options);
    // 100 unindexed rows: under the threshold
    assertThat(unindexedRows(uri, "vec_idx")).isEqualTo(100);
    addInput(in, 300, 360);
    run(in, cp, uri, options);
    // 160 unindexed rows after the second batch (of a restarted query): optimized
    assertThat(unindexedRows(uri, "vec_idx")).isZero();
    assertThat(unindexedRows(uri, "tenant_idx")).isZero();
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(uri)) {
      assertThat(ds.countRows()).isEqualTo(360);
    }
  }

  @Test
  void badValuesAndBatchWritesAreRefused(@TempDir Path dir) throws Exception {
    String uri = indexedTable(dir);
    Path in = dir.resolve("in");
    addInput(in, 200, 210);
    assertThatThrownBy(
            () -> run(in, dir.resolve("cp"), uri, Map.of("optimizeIndexEveryBatches", "0")))
        .hasStackTraceContaining("optimizeIndexEveryBatches=\"0\"")
        .hasStackTraceContaining("at least 1");
    assertThatThrownBy(
            () ->
                spark
                    .range(0, 5)
                    .selectExpr("id", "id as tenant", "array(0f, 0f, 0f, 0f) as vec")
                    .write()
                    .format("lance")
                    .mode("append")
                    .option("optimizeIndexUnindexedRows", "10")
                    .save(uri))
        .hasMessageContaining("on a batch write")
        .hasMessageContaining("optimize_index");
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(uri)) {
      assertThat(ds.countRows()).isEqualTo(200);
    }
    assertThat(Files.exists(dir.resolve("cp"))).isTrue();
  }

  /**
   * While a stream appends batches of 100 rows, reads and searches see whole committed batches: the
   * row count is always a multiple of 100, and the vector of the newest row read is found by the
   * search, which reads the latest committed version.
   */
  @Test
  void searchesDuringAStreamSeeWholeCommittedBatches(@TempDir Path dir) throws Exception {
    String uri = indexedTable(dir);
    Path in = dir.resolve("in");
    for (int b = 0; b < 5; b++) {
      addInput(in, 200 + b * 100L, 300 + b * 100L);
    }
    StreamingQuery q =
        spark
            .readStream()
            .schema(SCHEMA)
            .option("maxFilesPerTrigger", "1")
            .parquet(in.toString())
            .writeStream()
            .format("lance")
            .option("checkpointLocation", dir.resolve("cp").toString())
            .option("optimizeIndexEveryBatches", "2")
            .trigger(Trigger.ProcessingTime(200, java.util.concurrent.TimeUnit.MILLISECONDS))
            .start(uri);
    try {
      java.util.Set<Long> counts = new java.util.TreeSet<>();
      long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(5);
      long count = 0;
      while (count < 700) {
        assertThat(System.nanoTime()).as("stream did not finish: %s", counts).isLessThan(deadline);
        assertThat(q.exception().isEmpty()).as("%s", q.exception()).isTrue();
        count = spark.read().format("lance").load(uri).count();
        assertThat(count % 100).as("rows read mid-stream: %s", count).isZero();
        counts.add(count);
        long newest = count - 1;
        List<org.apache.spark.sql.Row> nearest =
            spark
                .sql(
                    "SELECT id FROM lance_vector_search('lance.`"
                        + uri
                        + "`', 'vec', array(cast(sin("
                        + newest
                        + ") as float), cast(cos("
                        + newest
                        + ") as float), cast("
                        + newest
                        + " % 13 as float), cast("
                        + newest
                        + " % 5 as float)), 1)")
                .collectAsList();
        assertThat(nearest.get(0).getLong(0)).isEqualTo(newest);
      }
      assertThat(counts).contains(700L);
    } finally {
      q.stop();
    }
  }
}
