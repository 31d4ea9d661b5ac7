package dev.lancelot.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.testing.LanceOracle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.spark.Success$;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.MetadataBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.WriteParams;

/** S2 and F3 through Spark: what spark writes opens in lance-core 7.0.0, row for row. */
class SparkWriteTest extends SharedSpark {

  /**
   * ids [from, from + n), skewed tenant ids, names with nulls, 16-dim float vectors marked as such.
   */
  static Dataset<Row> frame(long from, long n, int partitions) {
    return spark
        .range(from, from + n, 1, partitions)
        .select(
            col("id"),
            expr("cast(pow(rand(7), 3) * 100 as int)").as("tenant_id"),
            expr("case when id % 7 = 3 then null else concat('user-', id) end").as("name"),
            expr("transform(sequence(1, 16), i -> cast(sin(id * i) as float))")
                .as(
                    "vector",
                    new MetadataBuilder().putLong("arrow.fixed-size-list.size", 16).build()));
  }

  static List<List<Object>> sorted(List<List<Object>> rows) {
    List<List<Object>> out = new ArrayList<>(rows);
    out.sort(SparkReadTest.byId());
    return out;
  }

  /** A write reports the rows its tasks wrote and the data files and bytes it committed. */
  @Test
  void aWriteReportsWhatItWrote(@TempDir Path dir) throws Exception {
    AtomicReference<org.apache.spark.sql.execution.QueryExecution> seen = new AtomicReference<>();
    org.apache.spark.sql.util.QueryExecutionListener listener =
        new org.apache.spark.sql.util.QueryExecutionListener() {
          @Override
          public void onSuccess(
              String funcName, org.apache.spark.sql.execution.QueryExecution qe, long durationNs) {
            seen.set(qe);
          }

          @Override
          public void onFailure(
              String funcName, org.apache.spark.sql.execution.QueryExecution qe, Exception e) {}
        };
    spark.listenerManager().register(listener);
    try {
      frame(0, 3000, 3).write().format("lance").mode("overwrite").save(dir.resolve("m").toString());
      spark.sparkContext().listenerBus().waitUntilEmpty();
    } finally {
      spark.listenerManager().unregister(listener);
    }
    org.apache.spark.sql.execution.SparkPlan write = seen.get().executedPlan();
    java.util.Map<String, org.apache.spark.sql.execution.metric.SQLMetric> metrics =
        scala.jdk.javaapi.CollectionConverters.asJava(write.metrics());
    assertThat(metrics.get("rowsWritten").value()).isEqualTo(3000);
    assertThat(metrics.get("filesCommitted").value()).isEqualTo(3);
    long bytes;
    try (Stream<Path> files = Files.list(dir.resolve("m").resolve("data"))) {
      bytes = files.mapToLong(f -> f.toFile().length()).sum();
    }
    assertThat(metrics.get("bytesCommitted").value()).isEqualTo(bytes);
    assertThat(metrics.get("bytesCommitted").name().get()).isEqualTo("bytes committed");
  }

  /**
   * lance-spark's write option names: its alias is honoured, options lancelot lacks are refused.
   */
  @Test
  void lanceSparkOptionNames(@TempDir Path tmp) throws Exception {
    String path = tmp.resolve("aliases").toString();
    frame(0, 250, 1).write().format("lance").option("max_row_per_file", "100").save(path);
    try (var ds = LanceOracle.open(allocator, Path.of(path))) {
      assertThat(ds.getFragments()).extracting(f -> f.countRows()).containsExactly(100, 100, 50);
    }
    assertThatThrownBy(
            () ->
                frame(0, 10, 1)
                    .write()
                    .format("lance")
                    .option("max_row_per_file", "5")
                    .option("max_rows_per_file", "5")
                    .mode("append")
                    .save(path))
        .hasMessageContaining("\"max_row_per_file\" and \"max_rows_per_file\"")
        .hasMessageContaining("same option");
    assertThatThrownBy(
            () ->
                frame(0, 10, 1)
                    .write()
                    .format("lance")
                    .option("write_mode", "overwrite")
                    .mode("append")
                    .save(path))
        .hasMessageContaining("write_mode")
        .hasMessageContaining(".mode(\"overwrite\")");
    assertThatThrownBy(
            () -> spark.read().format("lance").option("index_cache_size", "10").load(path).count())
        .hasMessageContaining("spark.lancelot.cache.maxBytes");
    assertThat(LanceOracle.countRows(allocator, Path.of(path))).isEqualTo(250);
  }

  @Test
  void createAppendOverwriteIgnoreAndErrorIfExists(@TempDir Path tmp) throws Exception {
    String path = tmp.resolve("ds").toString();
    Dataset<Row> first = frame(0, 3000, 3);
    first.write().format("lance").save(path); // default mode: errorifexists
    List<String> cols = List.of("id", "tenant_id", "name", "vector");
    assertThat(sorted(LanceOracle.rows(allocator, Path.of(path), cols, null)))
        .isEqualTo(sorted(SparkReadTest.sparkRows(first)));
    try (var ds = LanceOracle.open(allocator, Path.of(path))) {
      assertThat(ds.version()).isEqualTo(1);
      assertThat(ds.getFragments()).hasSize(3); // one fragment per task, one version
      assertThat(ds.getSchema().findField("vector").getType().toString())
          .contains("FixedSizeList(16)");
    }

    frame(3000, 1000, 2).write().format("lance").mode("append").save(path);
    assertThat(LanceOracle.countRows(allocator, Path.of(path))).isEqualTo(4000);

    assertThatThrownBy(() -> frame(0, 10, 1).write().format("lance").save(path))
        .hasMessageContaining("already exists");
    frame(0, 10, 1).write().format("lance").mode("ignore").save(path);
    try (var ds = LanceOracle.open(allocator, Path.of(path))) {
      assertThat(ds.version()).isEqualTo(2);
    }

    Dataset<Row> replacement = frame(500, 200, 1).select("id", "vector");
    replacement.write().format("lance").mode("overwrite").save(path);
    try (var ds = LanceOracle.open(allocator, Path.of(path))) {
      assertThat(ds.version()).isEqualTo(3);
      assertThat(ds.countRows()).isEqualTo(200);
      assertThat(ds.getSchema().getFields()).hasSize(2);
    }
    assertThat(spark.read().format("lance").option("version", 2).load(path).count())
        .isEqualTo(4000);
  }

  @Test
  void appendCreatesAMissingDatasetAndLanceAppendsAndIndexesIt(@TempDir Path tmp) {
    String path = tmp.resolve("ds").toString();
    frame(0, 2000, 2).write().format("lance").mode("append").save(path);
    LanceOracle.write(
        allocator, Path.of(path), 2000, 500, 16, 3, WriteParams.WriteMode.APPEND, 10_000);
    assertThat(spark.read().format("lance").load(path).count()).isEqualTo(2500);

    LanceOracle.createIvfPq(allocator, Path.of(path), "vector", 4, 4);
    LanceOracle.createBTree(allocator, Path.of(path), "tenant_id");
    Row target = spark.read().format("lance").load(path).filter("id = 1234").first();
    List<Float> v = target.getList(3);
    float[] q = new float[v.size()];
    for (int i = 0; i < q.length; i++) {
      q[i] = v.get(i);
    }
    // Refined (exact re-rank of 50 PQ candidates): the row itself, at distance 0, must come first
    // whatever
    // codebook Lance's unseeded training produced.
    List<Long> ids =
        LanceOracle.nearest(allocator, Path.of(path), q, 5, 4, 10, null, true, null, false).stream()
            .map(LanceOracle.Hit::id)
            .toList();
    assertThat(ids).hasSize(5).first().isEqualTo(1234L);
    List<Long> filtered =
        LanceOracle.nearest(
                allocator,
                Path.of(path),
                q,
                5,
                4,
                10,
                null,
                true,
                "tenant_id = " + target.getInt(1),
                true)
            .stream()
            .map(LanceOracle.Hit::id)
            .toList();
    assertThat(filtered).first().isEqualTo(1234L);
    // The index section survives our later commits.
    frame(5000, 10, 1).write().format("lance").mode("append").save(path);
    try (var ds = LanceOracle.open(allocator, Path.of(path))) {
      assertThat(ds.listIndexes()).contains("vector_idx", "tenant_id_idx");
    }
  }

  @Test
  void vectorColumnsCanBeNamedByOption(@TempDir Path tmp) {
    String path = tmp.resolve("ds").toString();
    spark
        .range(0, 100)
        .select(col("id"), expr("transform(sequence(1, 8), i -> cast(i * id as float))").as("emb"))
        .write()
        .format("lance")
        .option("vector.columns", "emb:8")
        .save(path);
    try (var ds = LanceOracle.open(allocator, Path.of(path))) {
      assertThat(ds.getSchema().findField("emb").getType().toString()).contains("FixedSizeList(8)");
    }
    // Appends follow the dataset's schema: no option needed.
    spark
        .range(100, 150)
        .select(col("id"), expr("transform(sequence(1, 8), i -> cast(i as float))").as("emb"))
        .write()
        .format("lance")
        .mode("append")
        .save(path);
    assertThat(LanceOracle.countRows(allocator, Path.of(path))).isEqualTo(150);
  }

  /**
   * Counts down as the tasks of a job succeed; read by {@code after_other_tasks} in the executor
   * (same JVM).
   */
  static final AtomicReference<CountDownLatch> OTHER_TASKS = new AtomicReference<>();

  @Test
  void wrongVectorLengthIsRefusedAndLeavesNothingBehind(@TempDir Path tmp) throws Exception {
    String path = tmp.resolve("ds").toString();
    frame(0, 100, 1).write().format("lance").save(path);
    long filesBefore = countFiles(Path.of(path, "data"));
    // The task holding the bad row fails only once the three others have committed their files, so
    // the job's
    // abort must delete what they wrote. (Without the wait, a task still running when the job
    // aborts can
    // commit files that no abort hears of.)
    spark.sparkContext().listenerBus().waitUntilEmpty();
    OTHER_TASKS.set(new CountDownLatch(3));
    SparkListener successes =
        new SparkListener() {
          @Override
          public void onTaskEnd(SparkListenerTaskEnd end) {
            if (end.reason() instanceof Success$) {
              OTHER_TASKS.get().countDown();
            }
          }
        };
    spark.sparkContext().addSparkListener(successes);
    spark
        .udf()
        .register(
            "after_other_tasks",
            (UDF1<Long, Long>)
                id -> {
                  if (id == 777 && !OTHER_TASKS.get().await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the other write tasks did not finish");
                  }
                  return id;
                },
            DataTypes.LongType);
    try {
      Dataset<Row> bad =
          spark
              .range(0, 1000, 1, 4)
              .select(
                  col("id"),
                  expr("cast(1 as int)").as("tenant_id"),
                  expr("'x'").as("name"),
                  expr("transform(sequence(1, case when after_other_tasks(id) = 777 then 15 else 16 end), "
                          + "i -> cast(i as float))")
                      .as("vector"));
      assertThatThrownBy(() -> bad.write().format("lance").mode("append").save(path))
          .hasStackTraceContaining(
              "column \"vector\" is a vector of dimension 16 but the row's array has 15 "
                  + "elements");
    } finally {
      spark.sparkContext().removeSparkListener(successes);
    }
    assertThat(OTHER_TASKS.get().getCount()).isZero();
    assertThat(countFiles(Path.of(path, "data"))).isEqualTo(filesBefore);
    try (var ds = LanceOracle.open(allocator, Path.of(path))) {
      assertThat(ds.version()).isEqualTo(1);
    }
  }

  @Test
  void appendWithAMismatchingSchemaIsAClearError(@TempDir Path tmp) {
    String path = tmp.resolve("ds").toString();
    frame(0, 10, 1).write().format("lance").save(path);
    assertThatThrownBy(
            () ->
                spark
                    .range(5)
                    .selectExpr("id", "cast(id as string) as tenant_id")
                    .write()
                    .format("lance")
                    .mode("append")
                    .save(path))
        .hasStackTraceContaining("Cannot append to")
        .hasStackTraceContaining("column \"tenant_id\" is string but the dataset has int")
        .hasStackTraceContaining("column \"vector\" is missing");
  }

  static long countFiles(Path dir) throws Exception {
    try (Stream<Path> s = Files.list(dir)) {
      return s.count();
    }
  }
}
