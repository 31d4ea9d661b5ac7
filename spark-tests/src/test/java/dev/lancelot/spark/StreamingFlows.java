package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.distributed.DistributedWrite;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Streaming-sink flows run against any file system: the table and the query's checkpoint where the
 * caller says (local disk, HDFS, s3a), the input in parquet files on the local disk.
 */
final class StreamingFlows {
  static final StructType SCHEMA =
      new StructType().add("id", DataTypes.LongType).add("name", DataTypes.StringType);

  private StreamingFlows() {}

  /** One parquet file of rows {@code from..to-1} under {@code in}: one micro-batch per file. */
  static void addInput(SparkSession spark, Path in, long from, long to) {
    spark
        .range(from, to)
        .selectExpr("id", "concat('n', cast(id as string)) as name")
        .coalesce(1)
        .write()
        .mode("append")
        .parquet(in.toUri().toString());
  }

  private static StreamingQuery start(
      SparkSession spark, Path in, String checkpoint, String table, Trigger trigger)
      throws Exception {
    return spark
        .readStream()
        .schema(SCHEMA)
        .option("maxFilesPerTrigger", "1")
        .parquet(in.toUri().toString())
        .writeStream()
        .format("lance")
        .option("checkpointLocation", checkpoint)
        .trigger(trigger)
        .start(table);
  }

  static void runToTheEnd(SparkSession spark, Path in, String checkpoint, String table)
      throws Exception {
    StreamingQuery q = start(spark, in, checkpoint, table, Trigger.AvailableNow());
    q.awaitTermination();
    assertThat(q.exception().isEmpty()).as("%s", q.exception()).isTrue();
  }

  private static Dataset open(String table, Configuration conf) {
    return Dataset.open(table, OpenOptions.defaults().withHadoopConf(conf));
  }

  /** Which of batches 0..9 some version of the table records as committed. */
  static List<Long> committedBatches(String table, Configuration conf) {
    List<Long> epochs = new ArrayList<>();
    try (Dataset ds = open(table, conf)) {
      for (long e = 0; e < 10; e++) {
        if (DistributedWrite.newestCommitWith(ds, "lance.streaming.epochId", Long.toString(e))
            .isPresent()) {
          epochs.add(e);
        }
      }
    }
    return epochs;
  }

  static long version(String table, Configuration conf) {
    try (Dataset ds = open(table, conf)) {
      return ds.version();
    }
  }

  static List<Long> ids(SparkSession spark, String table) {
    return spark
        .read()
        .format("lance")
        .load(table)
        .orderBy("id")
        .select("id")
        .as(org.apache.spark.sql.Encoders.LONG())
        .collectAsList();
  }

  /**
   * Three batches into {@code table} with the checkpoint at {@code checkpoint}; then Spark loses
   * the checkpoint's record of batch 2 after the batch was committed, and runs it again on restart:
   * every row is in the table once, every batch committed once, no file written twice is left.
   */
  static void exactlyOnceAcrossARestart(
      SparkSession spark, Path in, String checkpoint, String table) throws Exception {
    Configuration conf = spark.sessionState().newHadoopConf();
    spark.createDataFrame(List.<Row>of(), SCHEMA).write().format("lance").save(table);
    addInput(spark, in, 0, 100);
    addInput(spark, in, 100, 180);
    runToTheEnd(spark, in, checkpoint, table);
    addInput(spark, in, 180, 250);
    runToTheEnd(spark, in, checkpoint, table);
    assertThat(committedBatches(table, conf)).containsExactly(0L, 1L, 2L);
    long filesBefore = dataFiles(table, conf);
    long versionBefore = version(table, conf);

    org.apache.hadoop.fs.Path commits = new org.apache.hadoop.fs.Path(checkpoint, "commits");
    FileSystem fs = commits.getFileSystem(conf);
    assertThat(fs.delete(new org.apache.hadoop.fs.Path(commits, "2"), false)).isTrue();
    fs.delete(new org.apache.hadoop.fs.Path(commits, ".2.crc"), false);
    runToTheEnd(spark, in, checkpoint, table);
    assertThat(fs.exists(new org.apache.hadoop.fs.Path(commits, "2"))).isTrue();
    assertThat(version(table, conf)).isEqualTo(versionBefore);
    assertThat(dataFiles(table, conf)).isEqualTo(filesBefore);

    addInput(spark, in, 250, 300);
    runToTheEnd(spark, in, checkpoint, table);
    List<Long> ids = ids(spark, table);
    assertThat(ids).hasSize(300).doesNotHaveDuplicates();
    assertThat(ids.get(299)).isEqualTo(299L);
    assertThat(committedBatches(table, conf)).containsExactly(0L, 1L, 2L, 3L);
  }

  /**
   * A stream and {@code writers} batch writers append to one table at the same time: every row of
   * both is there once, and the stream's batches are committed once each, in order.
   */
  static void streamAndBatchWritersAppendTogether(
      SparkSession spark, Path in, String checkpoint, String table, int writers) throws Exception {
    Configuration conf = spark.sessionState().newHadoopConf();
    spark.createDataFrame(List.<Row>of(), SCHEMA).write().format("lance").save(table);
    int batches = 6;
    for (int b = 0; b < batches; b++) {
      addInput(spark, in, b * 50L, b * 50L + 50);
    }
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      StreamingQuery q = start(spark, in, checkpoint, table, Trigger.AvailableNow());
      List<Future<?>> appends = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        long from = 1_000_000L * (w + 1);
        appends.add(
            pool.submit(
                () -> {
                  for (int round = 0; round < 3; round++) {
                    spark
                        .range(from + round * 20L, from + round * 20L + 20)
                        .selectExpr("id", "concat('b', cast(id as string)) as name")
                        .coalesce(1)
                        .write()
                        .format("lance")
                        .mode("append")
                        .save(table);
                  }
                  return null;
                }));
      }
      for (Future<?> f : appends) {
        f.get(5, TimeUnit.MINUTES);
      }
      q.awaitTermination();
      assertThat(q.exception().isEmpty()).as("%s", q.exception()).isTrue();
    } finally {
      pool.shutdownNow();
    }
    List<Long> ids = ids(spark, table);
    assertThat(ids).hasSize(batches * 50 + writers * 60).doesNotHaveDuplicates();
    assertThat(committedBatches(table, conf)).containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
    // one version per stream batch and per batch write, after the empty version 1
    assertThat(version(table, conf)).isEqualTo(1L + batches + writers * 3L);
  }

  /**
   * Data files under the table's {@code data/}, checked to be exactly those its latest version
   * lists.
   */
  static long dataFiles(String table, Configuration conf) throws IOException {
    java.util.Set<String> listed = new java.util.HashSet<>();
    try (Dataset ds = open(table, conf)) {
      ds.fragments().forEach(f -> listed.addAll(f.dataFileLocations()));
    }
    org.apache.hadoop.fs.Path data = new org.apache.hadoop.fs.Path(table, "data");
    FileSystem fs = data.getFileSystem(conf);
    java.util.Set<String> stored = new java.util.HashSet<>();
    var it = fs.listFiles(data, true);
    while (it.hasNext()) {
      stored.add(fs.makeQualified(it.next().getPath()).toString());
    }
    java.util.Set<String> qualifiedListed = new java.util.HashSet<>();
    for (String l : listed) {
      qualifiedListed.add(fs.makeQualified(new org.apache.hadoop.fs.Path(l)).toString());
    }
    assertThat(stored).as("data files on storage vs. in the manifest").isEqualTo(qualifiedListed);
    return stored.size();
  }
}
