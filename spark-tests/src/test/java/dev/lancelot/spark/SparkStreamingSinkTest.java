package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.ReadOptions;
import org.lance.Ref;

/**
 * The Structured Streaming sink: each micro-batch is one version whose transaction records the
 * query and the batch (lance-core reads them); a batch Spark runs again after a failure between the
 * commit and its checkpoint entry is not committed twice and leaves no file behind; complete mode
 * replaces the table's rows with each batch's result.
 */
class SparkStreamingSinkTest extends SharedSpark {
  static final StructType SCHEMA =
      new StructType().add("id", DataTypes.LongType).add("name", DataTypes.StringType);

  static void addInput(Path in, long from, long to) {
    spark
        .range(from, to)
        .selectExpr("id", "concat('n', cast(id as string)) as name")
        .coalesce(1)
        .write()
        .mode("append")
        .parquet(in.toString());
  }

  static void runToTheEnd(Path in, Path checkpoint, String target) throws Exception {
    StreamingQuery q =
        spark
            .readStream()
            .schema(SCHEMA)
            .parquet(in.toString())
            .writeStream()
            .format("lance")
            .option("checkpointLocation", checkpoint.toString())
            .trigger(Trigger.AvailableNow())
            .start(target);
    q.awaitTermination();
    assertThat(q.exception().isEmpty()).isTrue();
  }

  static long dataFiles(Path table) throws IOException {
    try (Stream<Path> s = Files.walk(table.resolve("data"))) {
      return s.filter(Files::isRegularFile).count();
    }
  }

  static Map<String, String> lanceTransactionProperties(String uri, long version) {
    try (org.lance.Dataset lance =
            org.lance.Dataset.open(allocator, uri, new ReadOptions.Builder().build());
        org.lance.Dataset at = lance.checkout(Ref.ofMain(version))) {
      return at.readTransaction().orElseThrow().transactionProperties().orElseThrow();
    }
  }

  @Test
  void eachBatchIsCommittedOnceEvenWhenSparkRunsItAgain(@TempDir Path dir) throws Exception {
    Path in = dir.resolve("in");
    Path cp = dir.resolve("checkpoint");
    Path out = dir.resolve("events.lance");
    String uri = out.toString();
    // start(path) infers the sink's schema from the dataset, so it must exist: version 1, empty
    spark.createDataFrame(List.<Row>of(), SCHEMA).write().format("lance").save(uri);
    addInput(in, 0, 100);
    runToTheEnd(in, cp, uri);
    addInput(in, 100, 250);
    runToTheEnd(in, cp, uri);

    Dataset<Row> read = spark.read().format("lance").load(uri);
    assertThat(read.count()).isEqualTo(250);
    Map<String, String> first = lanceTransactionProperties(uri, 2);
    Map<String, String> second = lanceTransactionProperties(uri, 3);
    assertThat(first).containsEntry("lance.streaming.epochId", "0");
    assertThat(second).containsEntry("lance.streaming.epochId", "1");
    assertThat(second.get("lance.streaming.queryId"))
        .isEqualTo(first.get("lance.streaming.queryId"))
        .isNotBlank();

    // A failure after batch 1 was committed but before Spark recorded it: Spark runs it again.
    long filesBefore = dataFiles(out);
    Files.delete(cp.resolve("commits").resolve("1"));
    Files.deleteIfExists(cp.resolve("commits").resolve(".1.crc"));
    runToTheEnd(in, cp, uri);
    assertThat(cp.resolve("commits").resolve("1")).exists(); // Spark ran batch 1 again
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(uri)) {
      assertThat(ds.version()).isEqualTo(3);
      assertThat(ds.countRows()).isEqualTo(250);
    }
    assertThat(dataFiles(out)).isEqualTo(filesBefore);

    addInput(in, 250, 300);
    runToTheEnd(in, cp, uri);
    List<Long> ids =
        spark
            .read()
            .format("lance")
            .load(uri)
            .orderBy("id")
            .select("id")
            .as(org.apache.spark.sql.Encoders.LONG())
            .collectAsList();
    assertThat(ids).hasSize(300);
    assertThat(ids.get(0)).isZero();
    assertThat(ids.get(299)).isEqualTo(299L);
    assertThat(lanceTransactionProperties(uri, 4)).containsEntry("lance.streaming.epochId", "2");
    try (org.lance.Dataset lance =
        org.lance.Dataset.open(allocator, uri, new ReadOptions.Builder().build())) {
      assertThat(lance.countRows()).isEqualTo(300);
    }
  }

  @Test
  void completeModeReplacesTheTableWithEachResult(@TempDir Path dir) throws Exception {
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lance.stream");
    spark.sql("DROP TABLE IF EXISTS lance.stream.counts");
    spark.sql("CREATE TABLE lance.stream.counts (bucket BIGINT, n BIGINT)");
    Path in = dir.resolve("in");
    Path cp = dir.resolve("checkpoint");
    addInput(in, 0, 40);
    for (int run = 0; run < 2; run++) {
      StreamingQuery q =
          spark
              .readStream()
              .schema(SCHEMA)
              .parquet(in.toString())
              .selectExpr("id % 4 as bucket")
              .groupBy("bucket")
              .count()
              .withColumnRenamed("count", "n")
              .writeStream()
              .outputMode("complete")
              .option("checkpointLocation", cp.toString())
              .trigger(Trigger.AvailableNow())
              .toTable("lance.stream.counts");
      q.awaitTermination();
      assertThat(q.exception().isEmpty()).isTrue();
      List<Row> rows =
          spark.sql("SELECT bucket, n FROM lance.stream.counts ORDER BY bucket").collectAsList();
      assertThat(rows).hasSize(4);
      long each = run == 0 ? 10 : 15;
      for (Row r : rows) {
        assertThat(r.getLong(1)).isEqualTo(each);
      }
      addInput(in, 40, 60);
    }
    spark.sql("DROP TABLE lance.stream.counts");
  }

  @Test
  void toTableCreatesAMissingCatalogTable(@TempDir Path dir) throws Exception {
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lance.stream");
    spark.sql("DROP TABLE IF EXISTS lance.stream.fresh");
    Path in = dir.resolve("in");
    addInput(in, 0, 30);
    StreamingQuery q =
        spark
            .readStream()
            .schema(SCHEMA)
            .parquet(in.toString())
            .writeStream()
            .format("lance")
            .option("checkpointLocation", dir.resolve("cp").toString())
            .trigger(Trigger.AvailableNow())
            .toTable("lance.stream.fresh");
    q.awaitTermination();
    assertThat(spark.sql("SELECT count(*) FROM lance.stream.fresh").first().getLong(0))
        .isEqualTo(30);
    spark.sql("DROP TABLE lance.stream.fresh");
  }

  @Test
  void aStreamAndBatchWritersAppendingTogetherLoseNothing(@TempDir Path dir) throws Exception {
    StreamingFlows.streamAndBatchWritersAppendTogether(
        spark,
        dir.resolve("in"),
        dir.resolve("cp").toString(),
        dir.resolve("shared.lance").toString(),
        2);
  }

  /**
   * Spark's rate source into the sink, stopped while it runs and restarted from its checkpoint:
   * every value the source produced up to the last committed batch is in the table once, the
   * versions are consecutive, and lance-core reads the same rows.
   */
  @Test
  void aRateSourceStoppedAndRestartedWritesEveryValueOnce(@TempDir Path dir) throws Exception {
    String uri = dir.resolve("rate.lance").toString();
    spark.createDataFrame(List.<Row>of(), SCHEMA).write().format("lance").save(uri);
    Path cp = dir.resolve("cp");
    for (int run = 0; run < 2; run++) {
      StreamingQuery q =
          spark
              .readStream()
              .format("rate")
              .option("rowsPerSecond", "200")
              .option("numPartitions", "2")
              .load()
              .selectExpr("value as id", "concat('r', cast(value as string)) as name")
              .writeStream()
              .format("lance")
              .option("checkpointLocation", cp.toString())
              .trigger(Trigger.ProcessingTime(300, java.util.concurrent.TimeUnit.MILLISECONDS))
              .start(uri);
      long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(3);
      long target = (run + 1) * 3L;
      while (q.lastProgress() == null || q.lastProgress().batchId() < target) {
        assertThat(System.nanoTime()).as("the stream made no progress").isLessThan(deadline);
        assertThat(q.exception().isEmpty()).as("%s", q.exception()).isTrue();
        Thread.sleep(100);
      }
      q.stop();
    }
    List<Long> ids =
        spark
            .read()
            .format("lance")
            .load(uri)
            .orderBy("id")
            .select("id")
            .as(org.apache.spark.sql.Encoders.LONG())
            .collectAsList();
    // the rate source numbers its rows 0, 1, 2, ...: every value up to the largest committed one
    assertThat(ids).isNotEmpty().doesNotHaveDuplicates();
    assertThat(ids.get(ids.size() - 1)).isEqualTo(ids.size() - 1L);
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(uri)) {
      java.util.List<String> epochs = new java.util.ArrayList<>();
      for (long v = 2; v <= ds.version(); v++) {
        epochs.add(lanceTransactionProperties(uri, v).get("lance.streaming.epochId"));
      }
      // one version per committed batch (batches without rows commit nothing), none twice
      for (int i = 1; i < epochs.size(); i++) {
        assertThat(Long.parseLong(epochs.get(i))).isGreaterThan(Long.parseLong(epochs.get(i - 1)));
      }
    }
    try (org.lance.Dataset lance =
        org.lance.Dataset.open(allocator, uri, new ReadOptions.Builder().build())) {
      assertThat(lance.countRows()).isEqualTo(ids.size());
    }
  }
}
