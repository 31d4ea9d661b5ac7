package dev.lancelot.spark.lines.bench;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.ClusteredData;
import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.spark.LanceCatalog;
import dev.lancelot.spark.LanceSparkExtensions;
import dev.lancelot.spark.search.NearestByJoinRule;
import dev.lancelot.spark.search.NearestOrderRule;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * A NEAREST BY join of a DataFrame of queries against an IVF_PQ-indexed lance table on Spark 4.2,
 * as lancelot's batch search (D65) and as Spark's own rewrite (a cross join and a top-k aggregate),
 * in one {@code local[2]} session: the search runs every query; Spark's rewrite runs the first
 * {@code bruteQueries} (its ground truth gives the recall of the search on those). Prints both
 * throughputs, their ratio, the recall and the load average. Lives in the 4.2 line's test sources
 * because NEAREST BY exists on Spark 4.2 only; run with the module's test classpath:
 *
 * <pre>
 * java -cp target/test-classes:target/classes:$(cat target/cp.txt) \
 *   dev.lancelot.spark.lines.bench.NearestJoinBenchmark DIR ROWS QUERIES DIM K NPROBES REFINE BRUTE
 * </pre>
 */
public final class NearestJoinBenchmark {
  private NearestJoinBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    int rows = Integer.parseInt(args[1]);
    int queries = Integer.parseInt(args[2]);
    int dim = Integer.parseInt(args[3]);
    int k = Integer.parseInt(args[4]);
    String nprobes = args[5];
    String refine = args[6];
    int brute = Integer.parseInt(args[7]);
    int clusters = 64;
    try (BufferAllocator allocator = new RootAllocator()) {
      if (!Files.exists(dir)) {
        long t0 = System.nanoTime();
        for (int first = 0; first < rows; first += 50_000) {
          int n = Math.min(50_000, rows - first);
          try (VectorSchemaRoot b = ClusteredData.generate(allocator, first, n, dim, clusters, 7);
              ArrowReader r = ArrowStreams.readerOf(allocator, List.of(b))) {
            Dataset.write(
                    dir.toString(),
                    r,
                    WriteOptions.of(first == 0 ? WriteMode.CREATE : WriteMode.APPEND))
                .close();
          }
        }
        try (Dataset ds = Dataset.open(dir.toString())) {
          VectorIndexes.create(
                  ds,
                  "vector",
                  VectorIndexSpec.of(IndexType.IVF_PQ, DistanceMetric.L2)
                      .withNumPartitions((int) Math.sqrt(rows))
                      .withNumSubVectors(dim / 8)
                      .withSeed(7))
              .close();
        }
        System.out.printf("data and index: %.1f s%n", (System.nanoTime() - t0) / 1e9);
      }
    }
    SparkSession spark =
        SparkSession.builder()
            .master("local[2]")
            .appName("nearest-join-benchmark")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.sql.extensions", LanceSparkExtensions.class.getName())
            .config("spark.sql.catalog.lance", LanceCatalog.class.getName())
            .getOrCreate();
    spark.read().format("lance").load(dir.toString()).createOrReplaceTempView("items");
    float[][] q = ClusteredData.queries(queries, dim, clusters, 7, 2024);
    StructType schema =
        new StructType()
            .add("qid", DataTypes.IntegerType)
            .add("q", DataTypes.createArrayType(DataTypes.FloatType));
    List<Row> all = new ArrayList<>();
    for (int i = 0; i < q.length; i++) {
      List<Float> v = new ArrayList<>();
      for (float f : q[i]) {
        v.add(f);
      }
      all.add(RowFactory.create(i, v));
    }
    spark.createDataFrame(all, schema).repartition(2).cache().createOrReplaceTempView("queries");
    spark.sql("SELECT count(*) FROM queries").collectAsList();
    spark
        .sql("SELECT * FROM queries WHERE qid < " + brute)
        .createOrReplaceTempView("brute_queries");
    spark.conf().set(NearestOrderRule.NPROBES_CONF, nprobes);
    spark.conf().set(NearestOrderRule.REFINE_CONF, refine);
    String join =
        " l JOIN items r APPROX NEAREST " + k + " BY DISTANCE vector_l2_distance(l.q, r.vector)";
    // warm-up: the executors' caches and the JIT
    spark.sql("SELECT l.qid, r.id FROM brute_queries" + join).collectAsList();

    double load0 = load();
    Run lancelot = run(spark, "SELECT l.qid, r.id FROM queries" + join);
    double load1 = load();
    spark.conf().set(NearestByJoinRule.ENABLED_CONF, "false");
    Run sparks = run(spark, "SELECT l.qid, r.id FROM brute_queries" + join);
    double load2 = load();
    spark.conf().unset(NearestByJoinRule.ENABLED_CONF);

    long hits = 0;
    for (Map.Entry<Integer, Set<Long>> e : sparks.answers.entrySet()) {
      Set<Long> found = lancelot.answers.getOrDefault(e.getKey(), Set.of());
      hits += e.getValue().stream().filter(found::contains).count();
    }
    if (lancelot.answers.size() != queries || lancelot.rows != (long) queries * k) {
      throw new IllegalStateException(
          "lancelot answered "
              + lancelot.answers.size()
              + " queries with "
              + lancelot.rows
              + " rows");
    }
    double recall = (double) hits / ((long) brute * k);
    double lq = queries / lancelot.seconds;
    double sq = brute / sparks.seconds;
    System.out.printf(
        "rows=%d dim=%d k=%d nprobes=%s refine=%s%n"
            + "lancelot: %d queries in %.1f s = %.1f q/s (load %.2f -> %.2f)%n"
            + "spark rewrite: %d queries in %.1f s = %.2f q/s (load -> %.2f)%n"
            + "ratio %.0fx, recall@%d vs the rewrite %.3f%n",
        rows,
        dim,
        k,
        nprobes,
        refine,
        queries,
        lancelot.seconds,
        lq,
        load0,
        load1,
        brute,
        sparks.seconds,
        sq,
        load2,
        lq / sq,
        k,
        recall);
    spark.stop();
  }

  private record Run(double seconds, long rows, Map<Integer, Set<Long>> answers) {}

  private static Run run(SparkSession spark, String sql) {
    long t0 = System.nanoTime();
    List<Row> rows = spark.sql(sql).collectAsList();
    double seconds = (System.nanoTime() - t0) / 1e9;
    Map<Integer, Set<Long>> answers = new HashMap<>();
    for (Row r : rows) {
      answers.computeIfAbsent(r.getInt(0), x -> new HashSet<>()).add(r.getLong(1));
    }
    return new Run(seconds, rows.size(), answers);
  }

  private static double load() {
    return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }
}
