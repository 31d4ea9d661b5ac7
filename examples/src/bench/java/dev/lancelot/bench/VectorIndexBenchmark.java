package dev.lancelot.bench;

import static dev.lancelot.bench.VectorBenchData.log;
import static dev.lancelot.bench.VectorBenchData.mib;
import static dev.lancelot.bench.VectorBenchData.ms;

import dev.lancelot.bench.VectorBenchData.Knobs;
import dev.lancelot.bench.VectorBenchData.Series;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.vector.DistanceMetric;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.lance.index.DistanceType;
import org.lance.index.IndexParams;
import org.lance.index.vector.HnswBuildParams;
import org.lance.index.vector.IvfBuildParams;
import org.lance.index.vector.PQBuildParams;
import org.lance.index.vector.SQBuildParams;
import org.lance.index.vector.VectorIndexParams;

/**
 * Issue 4: vector indexes, lancelot vs lance-core 7.0.0 in one JVM. On byte-identical copies of a
 * data set of {@link DataSets} ({@code --data}, default {@code synthetic-200k}), each engine builds
 * IVF_PQ (256 partitions, 16 sub-vectors, 8 bits) and IVF_HNSW_SQ (16 partitions, m=20,
 * ef_construction=150, 8-bit SQ) under the data set's metric, other parameters at their defaults.
 * Reports build time (builds run one after the other, never concurrently), index size on disk
 * ({@code _indices}), and for a grid of query parameters recall@10 against the exact top-10 plus
 * per-query latency p50/p99: one query in flight at a time, both engines interleaved query by
 * query, after warm-up queries.
 *
 * <p>Usage: {@code VectorIndexBenchmark <workdir> [queries=1000] [warmup=100]
 * [types=ivf_pq,ivf_hnsw_sq] [reuse] [--data <name>] [--unfair-allocator]} — {@code reuse} keeps
 * indexes already built in {@code <workdir>} (latency only).
 */
public final class VectorIndexBenchmark {
  static final int ROWS = 200_000;

  public static void main(String[] argv) throws Exception {
    BenchArgs bench = BenchArgs.start("VectorIndexBenchmark", argv, true);
    String[] args = bench.rest;
    Path work = Path.of(args.length > 0 ? args[0] : "/tmp/lancelot-vector-bench");
    int nq = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
    int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 100;
    List<String> types =
        Arrays.asList((args.length > 3 ? args[3] : "ivf_pq,ivf_hnsw_sq").split(","));
    boolean reuse = args.length > 4 && args[4].equals("reuse");
    List<String> report = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator()) {
      VectorBenchData data = DataSets.load(work, bench.data, nq);
      System.out.printf(
          "VectorIndexBenchmark: data set %s, %,d rows x float32[%d] %s, %d queries (%d warm-up), k=10;"
              + " JVM %s, %d cores; %s%n",
          data.name,
          data.rows,
          data.dim,
          data.metric.lanceName(),
          nq,
          warmup,
          System.getProperty("java.version"),
          Runtime.getRuntime().availableProcessors(),
          work);
      Path source = data.source(allocator, work, data.rows);
      for (String type : types) {
        IndexType t = IndexType.parse(type);
        Path ours = work.resolve(data.workDir("idx")).resolve(type).resolve("lancelot");
        Path lance = work.resolve(data.workDir("idx")).resolve(type).resolve("lance");
        boolean built =
            reuse
                && Files.exists(ours.resolve("_indices"))
                && Files.exists(lance.resolve("_indices"));
        if (!built) {
          VectorBenchData.copyTree(source, ours);
          VectorBenchData.copyTree(source, lance);
          report.add("");
          report.add("### build " + t + " (" + describe(t, data.metric) + "), " + data.name);
          report.add("");
          report.add("| | lancelot | Lance 7 | ratio |");
          report.add("|---|---:|---:|---:|");
          // Alternate who builds first between index types.
          long ourNs;
          long lanceNs;
          String loadBefore = VectorBenchData.load();
          if (t == IndexType.IVF_PQ) {
            lanceNs = buildLance(allocator, lance, t, data.metric);
            ourNs = buildOurs(ours, t, data.metric, null);
          } else {
            ourNs = buildOurs(ours, t, data.metric, null);
            lanceNs = buildLance(allocator, lance, t, data.metric);
          }
          String loadAfter = VectorBenchData.load();
          long ourSize = VectorBenchData.sizeOf(ours.resolve("_indices"));
          long lanceSize = VectorBenchData.sizeOf(lance.resolve("_indices"));
          report.add(
              String.format(
                  "| build time (s) | %.1f | %.1f | %.2f |",
                  ourNs / 1e9, lanceNs / 1e9, (double) ourNs / lanceNs));
          report.add(
              String.format(
                  "| index size on disk (MiB) | %s | %s | %.2f |",
                  mib(ourSize), mib(lanceSize), (double) ourSize / lanceSize));
          report.add(
              "| load average (1/5/15 min) before → after | "
                  + loadBefore
                  + " → "
                  + loadAfter
                  + " | | |");
          flush(report);
        }
        searchGrid(data, allocator, t, ours, lance, warmup, report);
        flush(report);
      }
    }
    System.out.println();
    System.out.println("==== RESULTS ====");
    report.forEach(System.out::println);
  }

  static void flush(List<String> report) {
    System.out.println(
        String.join("\n", report.subList(Math.max(0, report.size() - 40), report.size())));
    System.out.flush();
  }

  static String describe(IndexType t, DistanceMetric metric) {
    return (t == IndexType.IVF_PQ
            ? "256 partitions, 16 sub-vectors, 8 bits, "
            : "16 partitions, m=20, ef_construction=150, SQ 8 bits, ")
        + metric.lanceName();
  }

  /** {@code seed} null: the engine's default seed. */
  static long buildOurs(Path dir, IndexType t, DistanceMetric metric, Long seed) {
    VectorIndexSpec spec = VectorIndexSpec.of(t, metric);
    if (seed != null) {
      spec = spec.withSeed(seed);
    }
    spec =
        t == IndexType.IVF_PQ
            ? spec.withNumPartitions(256).withNumSubVectors(16).withNumBits(8)
            : spec.withNumPartitions(16).withHnsw(20, 150, 7);
    log("lancelot builds " + t);
    long t0 = System.nanoTime();
    try (Dataset ds = Dataset.open(dir.toString())) {
      VectorIndexes.create(ds, "vector", spec.withName("vector_idx")).close();
    }
    long ns = System.nanoTime() - t0;
    log(String.format("lancelot built %s in %.1f s", t, ns / 1e9));
    return ns;
  }

  static long buildLance(BufferAllocator allocator, Path dir, IndexType t, DistanceMetric metric) {
    DistanceType distance = DistanceType.valueOf(VectorBenchData.lanceDistance(metric));
    IvfBuildParams ivf =
        new IvfBuildParams.Builder().setNumPartitions(t == IndexType.IVF_PQ ? 256 : 16).build();
    VectorIndexParams params;
    if (t == IndexType.IVF_PQ) {
      PQBuildParams pq = new PQBuildParams.Builder().setNumSubVectors(16).setNumBits(8).build();
      params = VectorIndexParams.withIvfPqParams(distance, ivf, pq);
    } else {
      HnswBuildParams hnsw =
          new HnswBuildParams.Builder()
              .setM(20)
              .setEfConstruction(150)
              .setMaxLevel((short) 7)
              .build();
      SQBuildParams sq = new SQBuildParams.Builder().setNumBits((short) 8).build();
      params = VectorIndexParams.withIvfHnswSqParams(distance, ivf, hnsw, sq);
    }
    log("Lance builds " + t);
    long t0 = System.nanoTime();
    try (org.lance.Dataset ds = VectorBenchData.openLance(allocator, dir)) {
      ds.createIndex(
          List.of("vector"),
          org.lance.index.IndexType.valueOf(t.name()),
          Optional.of("vector_idx"),
          IndexParams.builder().setVectorIndexParams(params).build(),
          true);
    }
    long ns = System.nanoTime() - t0;
    log(String.format("Lance built %s in %.1f s", t, ns / 1e9));
    return ns;
  }

  static List<Knobs> grid(IndexType t, DistanceMetric metric) {
    List<Knobs> out = new ArrayList<>();
    if (t == IndexType.IVF_PQ) {
      for (int nprobes : new int[] {1, 4, 16, 64}) {
        for (Integer refine : new Integer[] {null, 4}) {
          out.add(Knobs.ann(nprobes, refine, null).metric(metric));
        }
      }
    } else {
      // 16 partitions: nprobes 64 would be the same search as 16.
      for (int nprobes : new int[] {1, 4, 16}) {
        for (int ef : new int[] {32, 64, 128}) {
          for (Integer refine : new Integer[] {null, 4}) {
            out.add(Knobs.ann(nprobes, refine, ef).metric(metric));
          }
        }
      }
    }
    return out;
  }

  static void searchGrid(
      VectorBenchData data,
      BufferAllocator allocator,
      IndexType t,
      Path ours,
      Path lance,
      int warmup,
      List<String> report) {
    report.add("");
    report.add(
        "### search "
            + t
            + " ("
            + describe(t, data.metric)
            + "), "
            + data.name
            + ", "
            + data.queries.length
            + " queries, k=10");
    report.add("");
    report.add(
        "| parameters | recall lancelot | recall Lance 7 | Δ recall | p50 ms lancelot | p50 ms Lance 7 "
            + "| p99 ms lancelot | p99 ms Lance 7 | load avg |");
    report.add("|---|---:|---:|---:|---:|---:|---:|---:|---|");
    try (Dataset ods = Dataset.open(ours.toString());
        org.lance.Dataset lds = VectorBenchData.openLance(allocator, lance)) {
      Knobs widest =
          (t == IndexType.IVF_PQ ? Knobs.ann(64, null, null) : Knobs.ann(16, null, 128))
              .metric(data.metric);
      VectorBenchData.prewarm(
          data.queries,
          q -> VectorBenchData.ours(ods, q, widest),
          q -> VectorBenchData.lance(lds, q, widest));
      for (Knobs k : grid(t, data.metric)) {
        Series[] s =
            VectorBenchData.sideBySide(
                data.queries,
                data.truth,
                warmup,
                q -> VectorBenchData.ours(ods, q, k),
                q -> VectorBenchData.lance(lds, q, k));
        report.add(row(k.label(), s[0], s[1]));
        log(report.get(report.size() - 1));
      }
    }
  }

  static String row(String label, Series a, Series b) {
    String ra = a.error != null ? "error" : String.format("%.3f", a.recall());
    String rb = b.error != null ? "error" : String.format("%.3f", b.recall());
    String d =
        a.error != null || b.error != null ? "" : String.format("%+.3f", a.recall() - b.recall());
    String r =
        "| "
            + label
            + " | "
            + ra
            + " | "
            + rb
            + " | "
            + d
            + " | "
            + (a.error != null ? "" : ms(a.percentileMs(0.5)))
            + " | "
            + (b.error != null ? "" : ms(b.percentileMs(0.5)))
            + " | "
            + (a.error != null ? "" : ms(a.percentileMs(0.99)))
            + " | "
            + (b.error != null ? "" : ms(b.percentileMs(0.99)))
            + " | "
            + VectorBenchData.load()
            + " |";
    if (a.error != null) {
      r += "\n  lancelot error: " + a.error;
    }
    if (b.error != null) {
      r += "\n  Lance error: " + b.error;
    }
    return r;
  }
}
