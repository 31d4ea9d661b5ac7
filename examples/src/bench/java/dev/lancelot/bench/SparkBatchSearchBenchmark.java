package dev.lancelot.bench;

import static dev.lancelot.bench.VectorBenchData.log;

import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.spark.LanceSparkExtensions;
import dev.lancelot.spark.search.LanceVectorSearch;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Many query vectors from a DataFrame (SPEC S6) against a plain-Spark brute force on the same data:
 * a data set of {@link DataSets} ({@code --data}, default the 200,000 × 128 {@code synthetic-200k};
 * IVF_PQ over the first 90% of the rows, the rest appended unindexed). Query vectors: for
 * synthetic-200k drawn from the data's clusters; for the other sets its held-out queries, repeated
 * in turn when more are asked for than it holds. lancelot searches all {@code queries} vectors in
 * one job ({@code LanceVectorSearch.search(spark, path, queriesDf, "embedding", params)}); the
 * brute force (cross join, squared l2 by {@code zip_with}/{@code aggregate}, top 10 per query by a
 * window) runs on the first {@code bruteQueries} of them, which is also the ground truth of the
 * recall@10 reported. Throughput = queries / wall seconds of the job, both engines in the same
 * session.
 *
 * <p>Usage: {@code SparkBatchSearchBenchmark <workdir> [queries=10000] [bruteQueries=100]
 * [nprobes=16] [refine=4] [master=local[2]] [--data <name>] [--unfair-allocator]}. The brute force
 * ranks by squared l2, so on a cosine data set (minilm, unit vectors) it ranks as cosine does.
 */
public final class SparkBatchSearchBenchmark {
  public static void main(String[] argv) throws Exception {
    BenchArgs bench = BenchArgs.start("SparkBatchSearchBenchmark", argv, true);
    String[] args = bench.rest;
    Path work = Path.of(args.length > 0 ? args[0] : "/tmp/lancelot-vector-bench");
    int n = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
    int bruteN = args.length > 2 ? Integer.parseInt(args[2]) : 100;
    int nprobes = args.length > 3 ? Integer.parseInt(args[3]) : 16;
    int refine = args.length > 4 ? Integer.parseInt(args[4]) : 4;
    String master = args.length > 5 ? args[5] : "local[2]";
    Path dir;
    VectorBenchData data;
    try (BufferAllocator allocator = new RootAllocator()) {
      data = DataSets.load(work, bench.data, 70);
      dir = SparkSearchBenchmark.prepare(allocator, data, work);
    }
    float[][] queries = queries(data, n);
    SparkSession spark =
        SparkSession.builder()
            .master(master)
            .appName("spark-batch-search-benchmark")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.sql.extensions", LanceSparkExtensions.class.getName())
            .getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    String load = VectorBenchData.load();
    List<String> report = new ArrayList<>();
    try {
      org.apache.spark.sql.Dataset<Row> all = frame(spark, queries, n).cache();
      all.count();
      org.apache.spark.sql.Dataset<Row> sub = frame(spark, queries, bruteN).cache();
      sub.count();
      VectorQuery params =
          VectorQuery.builder("vector")
              .k(10)
              .nprobes(nprobes)
              .refineFactor(refine)
              .columns("id")
              .metric(data.metric)
              .buildParameters();
      // Warm-up on the small set: JIT, executor caches (the same segment for every query).
      LanceVectorSearch.search(spark, dir.toString(), sub, "embedding", params).collectAsList();

      long cpu0 = processCpuNanos();
      long t0 = System.nanoTime();
      List<Row> ours =
          LanceVectorSearch.search(spark, dir.toString(), all, "embedding", params).collectAsList();
      double oursSeconds = (System.nanoTime() - t0) / 1e9;
      double oursCores = (processCpuNanos() - cpu0) / 1e9 / oursSeconds;
      log(String.format("lancelot: %,d queries in %.1f s (%,d rows)", n, oursSeconds, ours.size()));

      spark
          .read()
          .format("lance")
          .load(dir.toString())
          .select("id", "vector")
          .createOrReplaceTempView("items");
      sub.createOrReplaceTempView("brute_queries");
      long cpu1 = processCpuNanos();
      long t1 = System.nanoTime();
      List<Row> brute =
          spark
              .sql(
                  "SELECT qid, id FROM (SELECT qid, id, row_number() OVER (PARTITION BY qid ORDER BY "
                      + "d, id) AS r FROM (SELECT q.qid, i.id, aggregate(zip_with(q.embedding, i.vector, (a, b) -> (a - b) * "
                      + "(a - b)), 0D, (acc, x) -> acc + x) AS d FROM brute_queries q CROSS JOIN items i)) WHERE r <= 10")
              .collectAsList();
      double bruteSeconds = (System.nanoTime() - t1) / 1e9;
      double bruteCores = (processCpuNanos() - cpu1) / 1e9 / bruteSeconds;
      log(String.format("brute force: %,d queries in %.1f s", bruteN, bruteSeconds));

      Map<Long, Set<Long>> truth = new HashMap<>();
      brute.forEach(
          r -> truth.computeIfAbsent(r.getLong(0), q -> new HashSet<>()).add(r.getLong(1)));
      Map<Long, Set<Long>> got = new HashMap<>();
      ours.forEach(
          r ->
              got.computeIfAbsent(r.getLong(r.fieldIndex("qid")), q -> new HashSet<>())
                  .add(r.getLong(r.fieldIndex("id"))));
      double recall = 0;
      for (long q = 0; q < bruteN; q++) {
        Set<Long> hit = new HashSet<>(got.getOrDefault(q, Set.of()));
        hit.retainAll(truth.getOrDefault(q, Set.of()));
        recall += hit.size() / 10.0;
      }
      recall /= bruteN;
      log("query 0: lancelot " + got.get(0L) + ", brute force " + truth.get(0L));
      double oursQps = n / oursSeconds;
      double bruteQps = bruteN / bruteSeconds;
      report.add(
          "### Batch of query vectors from a DataFrame, "
              + data.name
              + ", "
              + master
              + ", IVF_PQ nprobes="
              + nprobes
              + " refine="
              + refine
              + ", k=10 (load "
              + load
              + " → "
              + VectorBenchData.load()
              + ")");
      report.add("");
      report.add(
          "| path | queries | seconds | queries/s | cores busy | recall@10 vs brute force |");
      report.add("|---|---:|---:|---:|---:|---:|");
      report.add(
          String.format(
              "| lancelot, LanceVectorSearch.search(queries DataFrame) | %,d | %.1f | %.0f | %.2f | %.3f |",
              n, oursSeconds, oursQps, oursCores, recall));
      report.add(
          String.format(
              "| plain Spark brute force (cross join, window top-10) | %,d | %.1f | %.2f | %.2f | 1 |",
              bruteN, bruteSeconds, bruteQps, bruteCores));
      report.add("");
      report.add(
          "cores busy = CPU time of the whole JVM (driver and local executors) during the job / its wall time, "
              + "out of "
              + Runtime.getRuntime().availableProcessors()
              + ".");
      report.add("");
      report.add(
          String.format("throughput ratio lancelot / brute force = %.0f×", oursQps / bruteQps));
    } finally {
      spark.stop();
    }
    System.out.println();
    System.out.println("==== RESULTS ====");
    report.forEach(System.out::println);
  }

  /**
   * Query vectors from the benchmark data's cluster centres (estimated from its rows) plus noise.
   */
  static float[][] queries(VectorBenchData data, int n) {
    if (!data.name.equals(VectorBenchData.SYNTHETIC)) {
      float[][] q = new float[n][];
      for (int i = 0; i < n; i++) {
        q[i] = data.queries[i % data.queries.length];
      }
      return q;
    }
    int dim = VectorBenchData.DIM;
    int clusters = VectorBenchData.CLUSTERS;
    float[][] centres = new float[clusters][dim];
    int[] counts = new int[clusters];
    for (int i = 0; i < data.rows; i++) {
      int c = i % clusters;
      counts[c]++;
      for (int d = 0; d < dim; d++) {
        centres[c][d] += data.vectors[i * dim + d];
      }
    }
    Random r = new Random(2024);
    float[][] q = new float[n][dim];
    for (float[] v : q) {
      int c = r.nextInt(clusters);
      for (int d = 0; d < dim; d++) {
        v[d] = centres[c][d] / counts[c] + (float) r.nextGaussian();
      }
    }
    return q;
  }

  /** CPU time of this JVM, all threads (the local master's executors included). */
  static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  static org.apache.spark.sql.Dataset<Row> frame(SparkSession spark, float[][] q, int n) {
    List<Row> rows = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Float[] boxed = new Float[q[i].length];
      for (int d = 0; d < boxed.length; d++) {
        boxed[d] = q[i][d];
      }
      rows.add(RowFactory.create((long) i, java.util.Arrays.asList(boxed)));
    }
    StructType schema =
        new StructType()
            .add("qid", DataTypes.LongType)
            .add("embedding", DataTypes.createArrayType(DataTypes.FloatType));
    return spark.createDataFrame(rows, schema).repartition(2);
  }
}
