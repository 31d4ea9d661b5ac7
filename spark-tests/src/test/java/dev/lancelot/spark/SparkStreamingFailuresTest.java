package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failures inside a streaming sink's batches (semantics S10): a task that fails is retried by Spark
 * and the batch's rows are committed once, with the failed attempt's files deleted; a query stopped
 * in the middle of a batch and restarted from its checkpoint commits every row once, in consecutive
 * versions. A session of its own, {@code local[2,3]}: Spark retries a failed task up to three times
 * only when the master says so.
 */
class SparkStreamingFailuresTest {
  private static SparkSession spark;

  /** Rows whose first task attempt fails (ids in [from, to)), or none. */
  private static volatile long failFrom = -1;

  private static volatile long failTo = -1;

  /** While this file exists, a task handling ids in [blockFrom, blockTo) waits for it to go. */
  private static volatile Path block;

  private static volatile long blockFrom = -1;
  private static volatile long blockTo = -1;

  /** Created by a task once it waits on {@link #block}. */
  private static volatile Path blocking;

  @BeforeAll
  static void start() {
    spark = SharedSpark.localSession().master("local[2,3]").getOrCreate();
    spark
        .udf()
        .register(
            "gate",
            (UDF1<Long, Long>)
                id -> {
                  if (id >= failFrom && id < failTo && TaskContext.get().attemptNumber() == 0) {
                    throw new IllegalStateException("injected task failure at id " + id);
                  }
                  Path b = block;
                  if (b != null && id >= blockFrom && id < blockTo) {
                    if (blocking != null && !Files.exists(blocking)) {
                      Files.createFile(blocking);
                    }
                    while (Files.exists(b)) {
                      Thread.sleep(50);
                    }
                  }
                  return id;
                },
            DataTypes.LongType);
  }

  @AfterAll
  static void stop() {
    if (spark != null) {
      spark.stop();
      spark = null;
    }
  }

  private static StreamingQuery start(Path in, Path cp, String table, Trigger trigger)
      throws Exception {
    return spark
        .readStream()
        .schema(StreamingFlows.SCHEMA)
        .option("maxFilesPerTrigger", "1")
        .parquet(in.toString())
        .selectExpr("gate(id) as id", "name")
        .repartition(2)
        .writeStream()
        .format("lance")
        .option("checkpointLocation", cp.toString())
        .trigger(trigger)
        .start(table);
  }

  private static String emptyTable(Path dir) {
    String table = dir.resolve("events.lance").toString();
    spark
        .createDataFrame(List.<Row>of(), StreamingFlows.SCHEMA)
        .write()
        .format("lance")
        .save(table);
    return table;
  }

  @Test
  void aFailedTaskIsRetriedAndItsBatchCommittedOnce(@TempDir Path dir) throws Exception {
    String table = emptyTable(dir);
    Path in = dir.resolve("in");
    StreamingFlows.addInput(spark, in, 0, 100);
    StreamingFlows.addInput(spark, in, 100, 200);
    StreamingFlows.addInput(spark, in, 200, 300);
    failFrom = 120;
    failTo = 130;
    try {
      StreamingQuery q = start(in, dir.resolve("cp"), table, Trigger.AvailableNow());
      q.awaitTermination();
      assertThat(q.exception().isEmpty()).as("%s", q.exception()).isTrue();
    } finally {
      failFrom = -1;
      failTo = -1;
    }
    Configuration conf = spark.sessionState().newHadoopConf();
    List<Long> ids = StreamingFlows.ids(spark, table);
    assertThat(ids).hasSize(300).doesNotHaveDuplicates();
    assertThat(StreamingFlows.committedBatches(table, conf)).containsExactly(0L, 1L, 2L);
    assertThat(StreamingFlows.version(table, conf)).isEqualTo(4);
    // the failed attempt's file is gone: the data directory holds exactly the committed files
    StreamingFlows.dataFiles(table, conf);
  }

  @Test
  void aQueryStoppedInTheMiddleOfABatchCommitsEveryRowOnceAfterARestart(@TempDir Path dir)
      throws Exception {
    String table = emptyTable(dir);
    Path in = dir.resolve("in");
    Path cp = dir.resolve("cp");
    StreamingFlows.addInput(spark, in, 0, 100);
    Path gate = dir.resolve("gate");
    Files.createFile(gate);
    blocking = dir.resolve("blocking");
    blockFrom = 100;
    blockTo = 200;
    block = gate;
    StreamingQuery q;
    try {
      q = start(in, cp, table, Trigger.ProcessingTime(100, TimeUnit.MILLISECONDS));
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
      Configuration conf = spark.sessionState().newHadoopConf();
      while (StreamingFlows.committedBatches(table, conf).isEmpty()) {
        assertThat(System.nanoTime()).as("batch 0 never committed").isLessThan(deadline);
        assertThat(q.exception().isEmpty()).as("%s", q.exception()).isTrue();
        Thread.sleep(50);
      }
      StreamingFlows.addInput(spark, in, 100, 200);
      while (!Files.exists(blocking)) {
        assertThat(System.nanoTime()).as("batch 1 never started").isLessThan(deadline);
        assertThat(q.exception().isEmpty()).as("%s", q.exception()).isTrue();
        Thread.sleep(50);
      }
      // batch 1 is running (a task waits in it): stop the query there
      q.stop();
    } finally {
      block = null;
      Files.deleteIfExists(gate);
    }
    Configuration conf = spark.sessionState().newHadoopConf();
    assertThat(StreamingFlows.committedBatches(table, conf)).containsExactly(0L);
    assertThat(StreamingFlows.ids(spark, table)).hasSize(100);
    StreamingFlows.addInput(spark, in, 200, 300);

    StreamingQuery again = start(in, cp, table, Trigger.AvailableNow());
    again.awaitTermination();
    assertThat(again.exception().isEmpty()).as("%s", again.exception()).isTrue();
    List<Long> ids = StreamingFlows.ids(spark, table);
    assertThat(ids).hasSize(300).doesNotHaveDuplicates();
    assertThat(ids.get(299)).isEqualTo(299L);
    assertThat(StreamingFlows.committedBatches(table, conf)).containsExactly(0L, 1L, 2L);
    // versions 2, 3, 4: one per batch, consecutive
    assertThat(StreamingFlows.version(table, conf)).isEqualTo(4);
    // the stopped batch's task files were deleted when it was aborted
    StreamingFlows.dataFiles(table, conf);
    try (org.apache.arrow.memory.BufferAllocator allocator =
            new org.apache.arrow.memory.RootAllocator();
        org.lance.Dataset lance =
            org.lance.Dataset.open(allocator, table, new org.lance.ReadOptions.Builder().build())) {
      assertThat(lance.countRows()).isEqualTo(300);
    }
  }
}
