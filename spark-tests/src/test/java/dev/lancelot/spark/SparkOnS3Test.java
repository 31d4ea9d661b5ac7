package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.io.StorageException;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.spark.index.LanceIndexBuilder;
import dev.lancelot.spark.search.LanceVectorSearch;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The connector and the engine on {@code s3a://}: an S3 server (S3Mock, in a JVM of its own, see
 * {@link S3MockServer}) started for this class, reached through S3A with path-style access and
 * static credentials from the Hadoop configuration ({@code spark.hadoop.fs.s3a.*}).
 *
 * <p>S3A talks to S3Mock through {@link S3Relay}, which forwards PUTs under {@code _versions/} one
 * at a time: S3Mock's own If-None-Match check is not atomic under concurrency, AWS S3's is.
 */
class SparkOnS3Test {
  static S3MockServer s3;
  static String endpoint;
  static SparkSession spark;

  @BeforeAll
  static void start() throws Exception {
    s3 = S3MockServer.start();
    endpoint = s3.relayed();
    SparkSession.Builder builder = SharedSpark.localSession();
    for (String[] kv : S3MockServer.s3aSettings(endpoint)) {
      builder.config("spark.hadoop." + kv[0], kv[1]);
    }
    spark = builder.getOrCreate();
  }

  @AfterAll
  static void stop() {
    try {
      if (spark != null) {
        spark.stop();
        spark = null;
      }
    } finally {
      if (s3 != null) {
        s3.close();
        s3 = null;
      }
    }
  }

  static String newLocation() {
    return "s3a://" + S3MockServer.BUCKET + "/" + UUID.randomUUID() + "/items";
  }

  static Configuration conf() {
    return spark.sessionState().newHadoopConf();
  }

  @Test
  void writeReadTimeTravelIndexSearchOptimizeAndDelete() {
    String path = newLocation();
    PathFlows.frame(spark, 0, 600, 2)
        .write()
        .format("lance")
        .save(path); // errorifexists: creates, v1
    assertThatThrownBy(() -> PathFlows.frame(spark, 0, 10, 1).write().format("lance").save(path))
        .hasMessageContaining("already exists");
    PathFlows.frame(spark, 0, 10, 1).write().format("lance").mode("ignore").save(path); // no-op
    PathFlows.frame(spark, 600, 200, 1).write().format("lance").mode("append").save(path); // v2
    assertThat(spark.read().format("lance").load(path).count()).isEqualTo(800);
    assertThat(spark.read().format("lance").load(path).filter("tenant_id = 3 AND id < 300").count())
        .isEqualTo(30);
    assertThat(spark.read().format("lance").option("version", 1).load(path).count()).isEqualTo(600);

    LanceIndexBuilder.createIndex(
        spark,
        path,
        "vector",
        VectorIndexSpec.of(IndexType.IVF_PQ, DistanceMetric.L2)
            .withNumPartitions(2)
            .withNumSubVectors(2)
            .withSeed(1)); // v3
    PathFlows.frame(spark, 800, 100, 1).write().format("lance").mode("append").save(path); // v4
    assertThat(LanceIndexBuilder.optimize(spark, path, "vector_idx", false)).isEqualTo(5);

    float[] q = PathFlows.vectorOf(42);
    List<Row> indexed =
        LanceVectorSearch.search(
                spark,
                path,
                VectorQuery.builder("vector")
                    .vector(q)
                    .k(5)
                    .nprobes(2)
                    .refineFactor(10)
                    .filter("tenant_id = 2")
                    .prefilter(true)
                    .columns("id")
                    .build())
            .collectAsList();
    assertThat(indexed).isNotEmpty().allMatch(r -> r.getLong(0) % 10 == 2);
    assertThat(indexed.get(0).getLong(0)).isEqualTo(42L);

    try (Dataset ds = Dataset.open(path, OpenOptions.defaults().withHadoopConf(conf()))) {
      assertThat(ds.version()).isEqualTo(5);
      ds.delete("id < 100").close(); // v6
    }
    assertThat(spark.read().format("lance").load(path).count()).isEqualTo(800);
    assertThat(spark.read().format("lance").load(path).filter("id < 100").count()).isZero();
    assertThat(spark.read().format("lance").option("version", 5).load(path).count()).isEqualTo(900);

    PathFlows.frame(spark, 5000, 50, 1).write().format("lance").mode("overwrite").save(path); // v7
    assertThat(spark.read().format("lance").load(path).count()).isEqualTo(50);
    assertThat(spark.read().format("lance").option("version", 6).load(path).count()).isEqualTo(800);
  }

  /**
   * The credentials never reach logs (every level of lancelot's loggers, INFO and above of the
   * rest), exception messages or plans, through writes, reads, searches, index builds, EXPLAIN,
   * DESCRIBE and failures.
   */
  @Test
  void credentialsNeverAppearInLogsMessagesOrPlans() {
    String path = newLocation();
    StringBuilder seen = new StringBuilder();
    try (LogCapture logs = LogCapture.start("dev.lancelot")) {
      PathFlows.frame(spark, 0, 400, 2).write().format("lance").save(path);
      org.apache.spark.sql.Dataset<Row> read =
          spark.read().format("lance").load(path).filter("tenant_id = 3");
      assertThat(read.count()).isEqualTo(40);
      seen.append(read.queryExecution().toString()).append('\n');
      seen.append(
          read.queryExecution()
              .explainString(org.apache.spark.sql.execution.ExtendedMode$.MODULE$));
      spark
          .sql(
              "CALL lance.system.create_index(table => '"
                  + path
                  + "', column => 'vector', index_type => "
                  + "'IVF_PQ', num_partitions => 2, num_sub_vectors => 2, seed => 1)")
          .collectAsList()
          .forEach(r -> seen.append(r).append('\n'));
      VectorQuery query =
          VectorQuery.builder("vector").vector(PathFlows.vectorOf(7)).k(3).nprobes(2).build();
      seen.append(LanceVectorSearch.explain(spark, path, query));
      LanceVectorSearch.search(spark, path, query)
          .collectAsList()
          .forEach(r -> seen.append(r).append('\n'));
      spark
          .sql("DESCRIBE TABLE EXTENDED lance.`" + path + "`")
          .collectAsList()
          .forEach(r -> seen.append(r).append('\n'));
      String missing = "s3a://" + S3MockServer.BUCKET + "/" + UUID.randomUUID() + "/nothing";
      Throwable notFound =
          org.assertj.core.api.Assertions.catchThrowable(
              () -> spark.read().format("lance").load(missing).count());
      Throwable noBucket =
          org.assertj.core.api.Assertions.catchThrowable(
              () ->
                  PathFlows.frame(spark, 0, 10, 1)
                      .write()
                      .format("lance")
                      .save("s3a://no-such-bucket-" + UUID.randomUUID() + "/items"));
      assertThat(notFound).isNotNull();
      assertThat(noBucket).isNotNull();
      for (Throwable t : List.of(notFound, noBucket)) {
        java.io.StringWriter trace = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(trace));
        seen.append(trace);
      }
      seen.append(logs.text());
      assertThat(logs.text()).as("lancelot logged something").contains("dev.lancelot");
    }
    String all = seen.toString();
    assertThat(all).contains(path); // the plans and messages name the dataset
    assertThat(all).doesNotContain(S3MockServer.SECRET_KEY).doesNotContain(S3MockServer.ACCESS_KEY);
  }

  /** lance-core 7's object-store options for the same server and credentials ({@code s3://}). */
  static java.util.Map<String, String> lanceStorageOptions() {
    return java.util.Map.of(
        "aws_endpoint",
        endpoint,
        "aws_region",
        "us-east-1",
        "allow_http",
        "true",
        "aws_access_key_id",
        S3MockServer.ACCESS_KEY,
        "aws_secret_access_key",
        S3MockServer.SECRET_KEY,
        "aws_virtual_hosted_style_request",
        "false");
  }

  static String lanceUri(String s3aLocation) {
    return "s3://" + s3aLocation.substring("s3a://".length());
  }

  /** Sorted ids of the rows lance-core reads at {@code uri}, with a filter (or null). */
  static List<Long> lanceIds(
      org.apache.arrow.memory.BufferAllocator allocator, String uri, String filter)
      throws Exception {
    List<Long> ids = new java.util.ArrayList<>();
    try (org.lance.Dataset ds =
        org.lance.Dataset.open(
            allocator,
            uri,
            new org.lance.ReadOptions.Builder().setStorageOptions(lanceStorageOptions()).build())) {
      org.lance.ipc.ScanOptions.Builder options =
          new org.lance.ipc.ScanOptions.Builder().columns(List.of("id"));
      if (filter != null) {
        options.filter(filter);
      }
      try (org.lance.ipc.LanceScanner scanner = ds.newScan(options.build());
          org.apache.arrow.vector.ipc.ArrowReader reader = scanner.scanBatches()) {
        while (reader.loadNextBatch()) {
          org.apache.arrow.vector.BigIntVector v =
              (org.apache.arrow.vector.BigIntVector) reader.getVectorSchemaRoot().getVector("id");
          for (int i = 0; i < v.getValueCount(); i++) {
            ids.add(v.get(i));
          }
        }
      }
    }
    ids.sort(null);
    return ids;
  }

  static List<Long> sparkIds(org.apache.spark.sql.Dataset<Row> df) {
    List<Long> ids =
        new java.util.ArrayList<>(
            df.select("id").as(org.apache.spark.sql.Encoders.LONG()).collectAsList());
    ids.sort(null);
    return ids;
  }

  /**
   * Interop on the same S3 server: lance-core 7 (object store options {@code aws_endpoint}, {@code
   * allow_http}, credentials) reads what lancelot wrote through S3A, including an index build and a
   * delete, and lancelot reads what lance-core wrote, appended and deleted there.
   */
  @Test
  void lanceCoreReadsWhatWeWroteOnS3AndWeReadWhatItWrote() throws Exception {
    try (org.apache.arrow.memory.BufferAllocator allocator =
        new org.apache.arrow.memory.RootAllocator()) {
      String ours = newLocation();
      PathFlows.frame(spark, 0, 600, 2).write().format("lance").save(ours);
      LanceIndexBuilder.createIndex(
          spark,
          ours,
          "vector",
          VectorIndexSpec.of(IndexType.IVF_PQ, DistanceMetric.L2)
              .withNumPartitions(2)
              .withNumSubVectors(2)
              .withSeed(1));
      try (Dataset ds = Dataset.open(ours, OpenOptions.defaults().withHadoopConf(conf()))) {
        ds.delete("tenant_id = 0").close(); // tenant_id = id % 10
      }
      assertThat(lanceIds(allocator, lanceUri(ours), null))
          .isEqualTo(sparkIds(spark.read().format("lance").load(ours)))
          .hasSize(540);
      assertThat(lanceIds(allocator, lanceUri(ours), "tenant_id = 3"))
          .isEqualTo(sparkIds(spark.read().format("lance").load(ours).filter("tenant_id = 3")));
      try (org.lance.Dataset ds =
          org.lance.Dataset.open(
              allocator,
              lanceUri(ours),
              new org.lance.ReadOptions.Builder()
                  .setStorageOptions(lanceStorageOptions())
                  .build())) {
        assertThat(ds.version()).isEqualTo(3);
        assertThat(ds.listIndexes()).isNotEmpty();
      }

      String theirs = newLocation();
      try (org.apache.arrow.vector.VectorSchemaRoot batch =
              dev.lancelot.engine.testing.StandardData.generate(allocator, 0, 500, 8, 3);
          org.apache.arrow.vector.ipc.ArrowReader reader =
              dev.lancelot.engine.testing.ArrowStreams.readerOf(allocator, List.of(batch))) {
        org.lance.Dataset.write()
            .allocator(allocator)
            .reader(reader)
            .uri(lanceUri(theirs))
            .storageOptions(lanceStorageOptions())
            .mode(org.lance.WriteParams.WriteMode.CREATE)
            .maxRowsPerFile(200)
            .execute()
            .close();
      }
      try (org.apache.arrow.vector.VectorSchemaRoot batch =
              dev.lancelot.engine.testing.StandardData.generate(allocator, 500, 100, 8, 4);
          org.apache.arrow.vector.ipc.ArrowReader reader =
              dev.lancelot.engine.testing.ArrowStreams.readerOf(allocator, List.of(batch))) {
        org.lance.Dataset.write()
            .allocator(allocator)
            .reader(reader)
            .uri(lanceUri(theirs))
            .storageOptions(lanceStorageOptions())
            .mode(org.lance.WriteParams.WriteMode.APPEND)
            .execute()
            .close();
      }
      try (org.lance.Dataset ds =
          org.lance.Dataset.open(
              allocator,
              lanceUri(theirs),
              new org.lance.ReadOptions.Builder()
                  .setStorageOptions(lanceStorageOptions())
                  .build())) {
        ds.delete("id < 50");
      }
      org.apache.spark.sql.Dataset<Row> read = spark.read().format("lance").load(theirs);
      assertThat(sparkIds(read))
          .isEqualTo(lanceIds(allocator, lanceUri(theirs), null))
          .hasSize(550);
      assertThat(sparkIds(read.filter("id >= 480 AND id < 520")))
          .isEqualTo(lanceIds(allocator, lanceUri(theirs), "id >= 480 AND id < 520"));
      assertThat(spark.read().format("lance").option("version", 1).load(theirs).count())
          .isEqualTo(500);
    }
  }

  @Test
  void manifestsAreWrittenWithAConditionalPutThatLosesCleanly() {
    HadoopFileIO io = new HadoopFileIO(conf());
    String location = newLocation() + "/_versions/1.manifest";
    assertThat(io.atomicityGuarantee(location)).startsWith("atomic: conditional PUT");
    int refused = s3.relay().versionPutsRefused.get();
    assertThat(io.putIfAbsent(location, "first".getBytes(StandardCharsets.UTF_8))).isTrue();
    assertThat(io.putIfAbsent(location, "second".getBytes(StandardCharsets.UTF_8))).isFalse();
    assertThat(s3.relay().versionPutsRefused.get()).isEqualTo(refused + 1); // the store said 412
    var in = io.newInputFile(location);
    var buf = in.read(0, (int) in.length());
    byte[] bytes = new byte[buf.remaining()];
    buf.get(bytes);
    assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo("first");
  }

  @Test
  void withoutConditionalWritesACommitIsRefusedUnlessASingleWriterIsDeclared() {
    Configuration off = new Configuration(conf());
    off.setBoolean("fs.s3a.create.conditional.enabled", false);
    off.setBoolean("fs.s3a.impl.disable.cache", true);
    HadoopFileIO io = new HadoopFileIO(off);
    String location = newLocation() + "/_versions/1.manifest";
    assertThatThrownBy(() -> io.putIfAbsent(location, new byte[] {1}))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("does not offer conditional writes")
        .hasMessageContaining(HadoopFileIO.SINGLE_WRITER);
    assertThat(io.exists(location)).isFalse();
    off.setBoolean(HadoopFileIO.SINGLE_WRITER, true);
    HadoopFileIO single = new HadoopFileIO(off);
    assertThat(single.atomicityGuarantee(location)).startsWith("not atomic");
    assertThat(single.putIfAbsent(location, new byte[] {1})).isTrue();
  }

  @Test
  void eightWritersAppendingConcurrentlyLoseNothing() throws Exception {
    for (int round = 0; round < ConcurrentAppends.rounds(); round++) {
      ConcurrentAppends.runAndCheck(newLocation(), conf());
    }
    assertThat(s3.relay().versionPutsRefused.get())
        .isPositive(); // races happened and were lost cleanly
  }

  /** Two JVMs with 4 writer threads each, appending to one dataset at the same time. */
  @Test
  void twoProcessesAppendingConcurrentlyLoseNothing() throws Exception {
    ConcurrentAppends.runInProcessesAndCheck(
        newLocation(), conf(), 2, S3MockServer.s3aSettings(endpoint));
  }

  /**
   * A streaming sink with its table and its checkpoint on s3a: every batch committed once across a
   * restart that replays a committed batch; a stream and batch writers appending together lose
   * nothing (S10).
   */
  @Test
  void aStreamWithItsCheckpointOnS3CommitsEachBatchOnce(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    String base = "s3a://" + S3MockServer.BUCKET + "/" + UUID.randomUUID();
    StreamingFlows.exactlyOnceAcrossARestart(
        spark, dir.resolve("in"), base + "/checkpoint", base + "/events.lance");
    StreamingFlows.streamAndBatchWritersAppendTogether(
        spark, dir.resolve("in2"), base + "/checkpoint2", base + "/shared.lance", 2);
  }
}
