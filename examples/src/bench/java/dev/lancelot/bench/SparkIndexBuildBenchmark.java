package dev.lancelot.bench;

import static dev.lancelot.bench.VectorBenchData.log;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.vector.VectorIndexDescription;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.spark.index.LanceIndexBuilder;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.spark.sql.SparkSession;

/**
 * Index builds from Spark (SPEC S7) against the engine's local build, on the vectors of a data set
 * of {@link DataSets} ({@code --data}, default the 200,000 × 128 {@code synthetic-200k}) written by
 * lancelot as several fragments, under the data set's metric: build time of each (same spec and
 * seed) and a check that both committed the same index (rows, partitions, stored vectors). Spark
 * runs embedded ({@code local[N]}), so on one machine this measures the overhead of the distributed
 * path (task scheduling, shipping the model and the codes), not a speed-up.
 *
 * <p>Usage: {@code SparkIndexBuildBenchmark <workdir> [fragments=8] [types=ivf_pq,ivf_hnsw_sq]
 * [master=local[2]] [--data <name>]}. It does not run lance-core.
 */
public final class SparkIndexBuildBenchmark {
  public static void main(String[] argv) throws Exception {
    BenchArgs bench = BenchArgs.start("SparkIndexBuildBenchmark", argv, false);
    String[] args = bench.rest;
    Path work = Path.of(args.length > 0 ? args[0] : "/tmp/lancelot-vector-bench");
    int fragments = args.length > 1 ? Integer.parseInt(args[1]) : 8;
    List<String> types = List.of((args.length > 2 ? args[2] : "ivf_pq,ivf_hnsw_sq").split(","));
    String master = args.length > 3 ? args[3] : "local[2]";
    SparkSession spark =
        SparkSession.builder()
            .master(master)
            .appName("spark-index-build-benchmark")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    StringBuilder report = new StringBuilder();
    report
        .append("| index | fragments | local build (s) | Spark build, ")
        .append(master)
        .append(
            " (s) | ratio | same index | load before → after |\n|---|---:|---:|---:|---:|---|---|\n");
    try (BufferAllocator allocator = new RootAllocator()) {
      VectorBenchData data = DataSets.load(work, bench.data, 10);
      int rows = data.rows;
      byte[] ipc = data.ipc(allocator, 0, rows);
      for (String type : types) {
        IndexType t = IndexType.parse(type);
        VectorIndexSpec spec = VectorIndexSpec.of(t, data.metric);
        spec =
            t == IndexType.IVF_PQ
                ? spec.withNumPartitions(256).withNumSubVectors(16)
                : spec.withNumPartitions(16).withHnsw(20, 150, 7);
        Path local = work.resolve(data.workDir("spark-build")).resolve(type).resolve("local");
        Path viaSpark = work.resolve(data.workDir("spark-build")).resolve(type).resolve("spark");
        for (Path p : List.of(local, viaSpark)) {
          VectorBenchData.deleteTree(p);
          try (ArrowReader r = VectorBenchData.reader(allocator, ipc)) {
            Dataset.write(
                    p.toString(),
                    r,
                    WriteOptions.of(WriteMode.CREATE)
                        .withMaxRowsPerFile((rows + fragments - 1) / fragments))
                .close();
          }
        }
        String before = VectorBenchData.load();
        log("local build of " + t);
        long t0 = System.nanoTime();
        try (Dataset ds = Dataset.open(local.toString())) {
          VectorIndexes.create(ds, "vector", spec).close();
        }
        long localNs = System.nanoTime() - t0;
        log("Spark build of " + t);
        t0 = System.nanoTime();
        LanceIndexBuilder.createIndex(spark, viaSpark.toString(), "vector", spec);
        long sparkNs = System.nanoTime() - t0;
        String after = VectorBenchData.load();
        VectorIndexDescription a;
        VectorIndexDescription b;
        try (Dataset ds = Dataset.open(local.toString())) {
          a = VectorIndexes.describe(ds, "vector_idx");
        }
        try (Dataset ds = Dataset.open(viaSpark.toString())) {
          b = VectorIndexes.describe(ds, "vector_idx");
        }
        boolean same =
            a.indexedRows() == b.indexedRows()
                && a.numPartitions() == b.numPartitions()
                && a.segments().get(0).storedVectors() == b.segments().get(0).storedVectors()
                && a.indexedFragments().equals(b.indexedFragments());
        if (!same) {
          throw new IllegalStateException(
              "the Spark build differs from the local build: " + a + " vs " + b);
        }
        report.append(
            String.format(
                "| "
                    + data.name
                    + ", %s | %d | %.1f | %.1f | %.2f | yes (%d rows, %d partitions) | %s → %s |%n",
                t,
                a.indexedFragments().size(),
                localNs / 1e9,
                sparkNs / 1e9,
                (double) sparkNs / localNs,
                a.indexedRows(),
                a.numPartitions(),
                before,
                after));
      }
    } finally {
      spark.stop();
    }
    System.out.println();
    System.out.println("==== RESULTS ====");
    System.out.print(report);
  }
}
