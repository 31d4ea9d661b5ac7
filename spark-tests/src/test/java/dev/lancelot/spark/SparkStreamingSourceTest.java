package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.CompactionOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.DataStreamWriter;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.ReadOptions;

/**
 * The Structured Streaming source (semantics S11): each version's appended rows are delivered once,
 * across appends, rate limits, {@code Trigger.AvailableNow} and restarts from the checkpoint;
 * versions that delete or rewrite rows fail the stream unless {@code skipChangeCommits}; compaction
 * passes unnoticed; a lance source feeds a lance sink.
 */
class SparkStreamingSourceTest extends SharedSpark {

  /** Appends ids {@code [from, to)} as one version of fragments of at most {@code perFile} rows. */
  static void append(String uri, long from, long to, int perFile) {
    spark
        .range(from, to)
        .selectExpr("id", "concat('n', cast(id as string)) as name")
        .coalesce(1)
        .write()
        .format("lance")
        .option("max_rows_per_file", perFile)
        .mode("append")
        .save(uri);
  }

  static Dataset<Row> source(String uri, String... options) {
    var reader = spark.readStream().format("lance");
    for (int i = 0; i < options.length; i += 2) {
      reader = reader.option(options[i], options[i + 1]);
    }
    return reader.load(uri);
  }

  static DataStreamWriter<Row> toMemory(Dataset<Row> stream, String name, Path checkpoint) {
    return stream
        .writeStream()
        .format("memory")
        .queryName(name)
        .outputMode("append")
        .option("checkpointLocation", checkpoint.toString());
  }

  static List<Long> ids(Dataset<Row> rows) {
    return rows.select("id").as(Encoders.LONG()).collectAsList().stream().sorted().toList();
  }

  static List<Long> range(long from, long to) {
    return LongStream.range(from, to).boxed().toList();
  }

  /** The rows of each micro-batch that read any, in order. */
  static List<Long> batchRows(StreamingQuery q) {
    List<Long> out = new ArrayList<>();
    for (StreamingQueryProgress p : q.recentProgress()) {
      if (p.numInputRows() > 0) {
        out.add(p.numInputRows());
      }
    }
    return out;
  }

  @Test
  void everyAppendedRowArrivesOnceAcrossAppendsAndCompaction(@TempDir Path dir) throws Exception {
    String uri = dir.resolve("t.lance").toString();
    append(uri, 0, 100, 40);
    StreamingQuery q = toMemory(source(uri), "appends", dir.resolve("cp")).start();
    try {
      q.processAllAvailable();
      assertThat(ids(spark.table("appends"))).isEqualTo(range(0, 100));
      append(uri, 100, 150, 40);
      append(uri, 150, 180, 40);
      q.processAllAvailable();
      assertThat(ids(spark.table("appends"))).isEqualTo(range(0, 180));
      try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(uri)) {
        // a rewrite version: the same rows in new fragments
        assertThat(ds.compact(CompactionOptions.defaults()).toString()).isNotEmpty();
        try (dev.lancelot.engine.Dataset compacted = ds.checkoutLatest()) {
          assertThat(compacted.operation()).isEqualTo("rewrite");
        }
      }
      append(uri, 180, 200, 40);
      q.processAllAvailable();
      assertThat(ids(spark.table("appends"))).isEqualTo(range(0, 200));
      assertThat(q.exception().isEmpty()).isTrue();
    } finally {
      q.stop();
    }
  }

  @Test
  void rateLimitsSplitBatchesAndAvailableNowStopsAtTheEnd(@TempDir Path dir) throws Exception {
    String uri = dir.resolve("t.lance").toString();
    append(uri, 0, 100, 20); // five fragments of 20 rows
    StreamingQuery rows =
        toMemory(source(uri, "maxRowsPerTrigger", "30"), "by_rows", dir.resolve("cp1"))
            .trigger(Trigger.AvailableNow())
            .start();
    rows.awaitTermination();
    assertThat(rows.exception().isEmpty()).isTrue();
    assertThat(batchRows(rows)).containsExactly(30L, 30L, 30L, 10L);
    assertThat(ids(spark.table("by_rows"))).isEqualTo(range(0, 100));

    StreamingQuery files =
        toMemory(source(uri, "maxFilesPerTrigger", "2"), "by_files", dir.resolve("cp2"))
            .trigger(Trigger.AvailableNow())
            .start();
    files.awaitTermination();
    assertThat(batchRows(files)).containsExactly(40L, 40L, 20L);
    assertThat(ids(spark.table("by_files"))).isEqualTo(range(0, 100));

    StreamingQuery both =
        toMemory(
                source(uri, "maxFilesPerTrigger", "2", "maxRowsPerTrigger", "25"),
                "by_both",
                dir.resolve("cp3"))
            .trigger(Trigger.AvailableNow())
            .start();
    both.awaitTermination();
    assertThat(batchRows(both)).containsExactly(25L, 25L, 25L, 25L);
    assertThat(ids(spark.table("by_both"))).isEqualTo(range(0, 100));
  }

  @Test
  void aRestartedQueryDeliversNoRowTwiceAndNoneIsLost(@TempDir Path dir) throws Exception {
    String uri = dir.resolve("t.lance").toString();
    Path out = dir.resolve("out");
    Path cp = dir.resolve("cp");
    append(uri, 0, 200, 50);
    // A query stopped after some of its small batches, with rows still to deliver.
    StreamingQuery first =
        source(uri, "maxRowsPerTrigger", "15")
            .writeStream()
            .format("parquet")
            .option("checkpointLocation", cp.toString())
            .trigger(Trigger.ProcessingTime(10))
            .start(out.toString());
    while (first.recentProgress().length < 2 && first.exception().isEmpty()) {
      Thread.sleep(20);
    }
    first.stop();
    long delivered = spark.read().parquet(out.toString()).count();
    assertThat(delivered).isLessThan(200);
    append(uri, 200, 260, 50);
    append(uri, 260, 270, 50);
    StreamingQuery second =
        source(uri, "maxRowsPerTrigger", "40")
            .writeStream()
            .format("parquet")
            .option("checkpointLocation", cp.toString())
            .trigger(Trigger.AvailableNow())
            .start(out.toString());
    second.awaitTermination();
    assertThat(second.exception().isEmpty()).isTrue();
    assertThat(ids(spark.read().parquet(out.toString()))).isEqualTo(range(0, 270));
  }

  @Test
  void aDeleteFailsTheStreamNamingItsVersionUnlessChangeCommitsAreSkipped(@TempDir Path dir)
      throws Exception {
    String uri = dir.resolve("t.lance").toString();
    append(uri, 0, 50, 50);
    append(uri, 50, 80, 50);
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(uri);
        dev.lancelot.engine.Dataset deleted = ds.delete("id < 10")) {
      assertThat(deleted.version()).isEqualTo(3);
    }
    append(uri, 80, 100, 50);

    StreamingQuery failing =
        toMemory(source(uri, "startingVersion", "1"), "failing", dir.resolve("cp1"))
            .trigger(Trigger.AvailableNow())
            .start();
    assertThatThrownBy(failing::awaitTermination)
        .isInstanceOf(StreamingQueryException.class)
        .hasMessageContaining("Cannot stream version 3 of")
        .hasMessageContaining("(delete)")
        .hasMessageContaining("skipChangeCommits");
    // the rows appended before the delete were delivered first
    assertThat(ids(spark.table("failing"))).isEqualTo(range(0, 80));

    StreamingQuery skipping =
        toMemory(
                source(uri, "startingVersion", "1", "skipChangeCommits", "true"),
                "skipping",
                dir.resolve("cp2"))
            .trigger(Trigger.AvailableNow())
            .start();
    skipping.awaitTermination();
    assertThat(ids(spark.table("skipping"))).isEqualTo(range(0, 100));

    // an UPDATE is a change too
    spark.sql("UPDATE lance.`" + uri + "` SET name = 'x' WHERE id = 90");
    append(uri, 100, 110, 50);
    StreamingQuery afterUpdate =
        toMemory(source(uri, "startingVersion", "4"), "after_update", dir.resolve("cp3"))
            .trigger(Trigger.AvailableNow())
            .start();
    assertThatThrownBy(afterUpdate::awaitTermination)
        .hasMessageContaining("Cannot stream version 5 of")
        .hasMessageContaining("(update)");
    assertThat(ids(spark.table("after_update"))).isEqualTo(range(80, 100));
  }

  @Test
  void startingVersionChoosesWhereTheStreamStarts(@TempDir Path dir) throws Exception {
    String uri = dir.resolve("t.lance").toString();
    append(uri, 0, 10, 50);
    append(uri, 10, 20, 50);
    append(uri, 20, 30, 50);
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(uri);
        dev.lancelot.engine.Dataset deleted = ds.delete("id < 5")) {
      assertThat(deleted.version()).isEqualTo(4);
    }
    // default: the latest version's whole content (without the deleted rows), then what follows
    StreamingQuery snapshot = toMemory(source(uri), "from_snapshot", dir.resolve("cp1")).start();
    StreamingQuery fromTwo =
        toMemory(
                source(uri, "startingVersion", "2", "skipChangeCommits", "true"),
                "from_two",
                dir.resolve("cp2"))
            .start();
    StreamingQuery latest =
        toMemory(source(uri, "startingVersion", "latest"), "from_latest", dir.resolve("cp3"))
            .start();
    try {
      snapshot.processAllAvailable();
      fromTwo.processAllAvailable();
      latest.processAllAvailable();
      append(uri, 30, 40, 50);
      snapshot.processAllAvailable();
      fromTwo.processAllAvailable();
      latest.processAllAvailable();
      assertThat(ids(spark.table("from_snapshot"))).isEqualTo(range(5, 40));
      assertThat(ids(spark.table("from_two"))).isEqualTo(range(10, 40));
      assertThat(ids(spark.table("from_latest"))).isEqualTo(range(30, 40));
    } finally {
      snapshot.stop();
      fromTwo.stop();
      latest.stop();
    }
    assertThatThrownBy(
            () ->
                toMemory(source(uri, "startingVersion", "9"), "too_far", dir.resolve("cp4"))
                    .trigger(Trigger.AvailableNow())
                    .start()
                    .awaitTermination())
        .hasMessageContaining("startingVersion 9: the latest version is 5");
    assertThatThrownBy(
            () ->
                toMemory(source(uri, "version", "2"), "time_travel", dir.resolve("cp5"))
                    .trigger(Trigger.AvailableNow())
                    .start()
                    .awaitTermination())
        .hasMessageContaining("start it with option startingVersion instead");
    assertThatThrownBy(
            () ->
                toMemory(source(uri, "maxRowsPerTrigger", "0"), "zero", dir.resolve("cp6"))
                    .start()
                    .awaitTermination())
        .hasMessageContaining("maxRowsPerTrigger=\"0\": expected a whole number of at least 1");
  }

  @Test
  void aVersionRemovedByCleanupFailsTheStreamClearly(@TempDir Path dir) throws Exception {
    String uri = dir.resolve("t.lance").toString();
    append(uri, 0, 10, 50);
    append(uri, 10, 20, 50);
    append(uri, 20, 30, 50);
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(uri)) {
      assertThat(ds.cleanup(dev.lancelot.engine.CleanupOptions.retainVersions(1)).toString())
          .isNotEmpty();
    }
    assertThatThrownBy(
            () ->
                toMemory(source(uri, "startingVersion", "2"), "cleaned", dir.resolve("cp"))
                    .trigger(Trigger.AvailableNow())
                    .start()
                    .awaitTermination())
        .hasMessageContaining("Cannot stream version 2 of")
        .hasMessageContaining("a version removed by cleanup cannot be streamed");
    // the latest version's content is still there to start from
    StreamingQuery q =
        toMemory(source(uri), "after_cleanup", dir.resolve("cp2"))
            .trigger(Trigger.AvailableNow())
            .start();
    q.awaitTermination();
    assertThat(ids(spark.table("after_cleanup"))).isEqualTo(range(0, 30));
  }

  @Test
  void aLanceSourceFeedsALanceSinkWithProjectionAndFilter(@TempDir Path dir) throws Exception {
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lance.stream");
    spark.sql("DROP TABLE IF EXISTS lance.stream.src");
    spark.sql("CREATE TABLE lance.stream.src (id BIGINT, name STRING)");
    spark.sql("INSERT INTO lance.stream.src SELECT id, concat('n', id) FROM range(0, 60)");
    String target = dir.resolve("even.lance").toString();
    // start(path) takes the sink's schema from the dataset, so it must exist: version 1, empty
    spark
        .sql("SELECT id, name FROM lance.stream.src WHERE false")
        .write()
        .format("lance")
        .save(target);
    for (int run = 0; run < 2; run++) {
      StreamingQuery q =
          spark
              .readStream()
              .table("lance.stream.src")
              .where("id % 2 = 0")
              .select("id", "name")
              .writeStream()
              .format("lance")
              .option("checkpointLocation", dir.resolve("cp").toString())
              .trigger(Trigger.AvailableNow())
              .start(target);
      q.awaitTermination();
      assertThat(q.exception().isEmpty()).isTrue();
      if (run == 0) {
        spark.sql("INSERT INTO lance.stream.src SELECT id, concat('n', id) FROM range(60, 100)");
      }
    }
    List<Long> expected = LongStream.range(0, 100).filter(i -> i % 2 == 0).boxed().toList();
    assertThat(ids(spark.read().format("lance").load(target))).isEqualTo(expected);
    try (org.lance.Dataset lance =
        org.lance.Dataset.open(allocator, target, new ReadOptions.Builder().build())) {
      assertThat(lance.countRows()).isEqualTo(expected.size());
    }
    spark.sql("DROP TABLE lance.stream.src");
  }
}
