package dev.lancelot.bench;

import static dev.lancelot.bench.VectorBenchData.log;

import dev.lancelot.bench.VectorBenchData.Knobs;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.index.IndexType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * Recall of repeated index builds, lancelot vs lance-core 7.0.0. At a small {@code nprobes}, recall
 * depends mostly on which vectors share a query's IVF partition, i.e. on the k-means result, which
 * depends on the random training sample and start: Lance draws them unseeded, so each of its builds
 * differs; lancelot draws them from its seed. One build per engine compares two draws; this job
 * compares the distributions: it builds the index {@code builds} times per engine (lancelot with
 * seeds 1..builds, Lance unseeded) on byte-identical copies of a data set of {@link DataSets}
 * ({@code --data}, default {@code synthetic-200k}) and reports recall@10 per build and its mean,
 * standard deviation and range. IVF_PQ cells are nprobes 1, 4, 16 and 64 without and with
 * refinement (refine_factor 4, which takes PQ's own error out and shows how much a data set's
 * neighbours spread over partitions). For IVF_PQ it also prints each build's index statistics
 * ({@link IvfPqProbe#stats}: partition sizes, IVF loss, PQ error, IVF ceiling), read by lancelot
 * from both engines' index files.
 *
 * <p>Usage: {@code RecallSpreadBenchmark <workdir> [queries=1000] [builds=5] [type=ivf_hnsw_sq]
 * [--data <name>] [--engines=both|lancelot|lance] [--first-seed=1] [--unfair-allocator]}. {@code
 * --engines} builds and measures one engine only (more builds of one side without rebuilding the
 * other; the per-build figures of separate runs can be pooled because every build is independent);
 * {@code --first-seed} numbers lancelot's seeds from there ({@code first-seed .. first-seed +
 * builds - 1}).
 */
public final class RecallSpreadBenchmark {
  public static void main(String[] argv) throws Exception {
    String engines = "both";
    long firstSeed = 1;
    List<String> positional = new ArrayList<>();
    for (String a : argv) {
      if (a.startsWith("--engines=")) {
        engines = a.substring("--engines=".length());
        if (!List.of("both", "lancelot", "lance").contains(engines)) {
          throw new IllegalArgumentException(
              "--engines must be both, lancelot or lance, not '" + engines + "'");
        }
      } else if (a.startsWith("--first-seed=")) {
        firstSeed = Long.parseLong(a.substring("--first-seed=".length()));
      } else {
        positional.add(a);
      }
    }
    boolean runOurs = !engines.equals("lance");
    boolean runLance = !engines.equals("lancelot");
    BenchArgs bench =
        BenchArgs.start("RecallSpreadBenchmark", positional.toArray(new String[0]), runLance);
    String[] args = bench.rest;
    Path work = Path.of(args.length > 0 ? args[0] : "/tmp/lancelot-vector-bench");
    int nq = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
    int builds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    IndexType t = IndexType.parse(args.length > 3 ? args[3] : "ivf_hnsw_sq");
    double[][] ours;
    double[][] theirs;
    List<Knobs> cells = new ArrayList<>();
    List<String> indexStats = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator()) {
      VectorBenchData data = DataSets.load(work, bench.data, nq);
      List<Knobs> plain =
          t == IndexType.IVF_PQ
              ? List.of(
                  Knobs.ann(1, null, null),
                  Knobs.ann(4, null, null),
                  Knobs.ann(16, null, null),
                  Knobs.ann(64, null, null),
                  Knobs.ann(1, 4, null),
                  Knobs.ann(4, 4, null),
                  Knobs.ann(16, 4, null),
                  Knobs.ann(64, 4, null))
              : List.of(
                  Knobs.ann(1, null, 64),
                  Knobs.ann(1, 4, 64),
                  Knobs.ann(1, null, 128),
                  Knobs.ann(1, 4, 128),
                  Knobs.ann(4, 4, 64));
      plain.forEach(k -> cells.add(k.metric(data.metric)));
      System.out.printf(
          "RecallSpreadBenchmark: data set %s (%,d rows x %d, %s), %s (%s), %d builds per engine"
              + " (%s), %d queries, k=10%n",
          data.name,
          data.rows,
          data.dim,
          data.metric.lanceName(),
          t,
          VectorIndexBenchmark.describe(t, data.metric),
          builds,
          runOurs && runLance ? "both engines" : engines + " only",
          nq);
      ours = new double[cells.size()][builds];
      theirs = new double[cells.size()][builds];
      Path source = data.source(allocator, work, data.rows);
      for (int b = 0; b < builds; b++) {
        Path oursDir = work.resolve(data.workDir("spread")).resolve("lancelot");
        Path lanceDir = work.resolve(data.workDir("spread")).resolve("lance");
        VectorBenchData.deleteTree(oursDir);
        VectorBenchData.deleteTree(lanceDir);
        long seed = firstSeed + b;
        if (runOurs) {
          VectorBenchData.copyTree(source, oursDir);
          VectorIndexBenchmark.buildOurs(oursDir, t, data.metric, seed);
        }
        if (runLance) {
          VectorBenchData.copyTree(source, lanceDir);
          VectorIndexBenchmark.buildLance(allocator, lanceDir, t, data.metric);
        }
        // try-with-resources skips null resources: only the engines that built are opened.
        try (Dataset ods = runOurs ? Dataset.open(oursDir.toString()) : null;
            org.lance.Dataset lds =
                runLance ? VectorBenchData.openLance(allocator, lanceDir) : null) {
          if (t == IndexType.IVF_PQ) {
            try (Dataset lanceIndex = runLance ? Dataset.open(lanceDir.toString()) : null) {
              if (runOurs) {
                indexStats.add(IvfPqProbe.stats("lancelot seed " + seed, ods, data));
                log(indexStats.get(indexStats.size() - 1));
              }
              if (runLance) {
                indexStats.add(IvfPqProbe.stats("Lance build " + (b + 1), lanceIndex, data));
                log(indexStats.get(indexStats.size() - 1));
              }
            }
          }
          for (int c = 0; c < cells.size(); c++) {
            Knobs k = cells.get(c);
            double a = 0;
            double l = 0;
            for (int q = 0; q < nq; q++) {
              if (runOurs) {
                a +=
                    VectorBenchData.recall(
                        VectorBenchData.ours(ods, data.queries[q], k), data.truth[q]);
              }
              if (runLance) {
                l +=
                    VectorBenchData.recall(
                        VectorBenchData.lance(lds, data.queries[q], k), data.truth[q]);
              }
            }
            ours[c][b] = runOurs ? a / nq : Double.NaN;
            theirs[c][b] = runLance ? l / nq : Double.NaN;
            log(
                String.format(
                    "build %d, %s: lancelot (seed %d) %.3f, Lance %.3f",
                    b + 1, k.label(), seed, ours[c][b], theirs[c][b]));
          }
        }
      }
    }
    System.out.println();
    System.out.println("==== RESULTS ====");
    System.out.println(
        "| parameters | lancelot per build (seeds "
            + firstSeed
            + ".."
            + (firstSeed + builds - 1)
            + ") | Lance 7 per build "
            + "| lancelot mean ± sd | Lance 7 mean ± sd | Δ of means | lancelot min–max | Lance 7 min–max |");
    System.out.println("|---|---|---|---:|---:|---:|---:|---:|");
    for (int c = 0; c < cells.size(); c++) {
      System.out.printf(
          "| %s | %s | %s | %.3f ± %.3f | %.3f ± %.3f | %+.3f | %.3f–%.3f | %.3f–%.3f |%n",
          cells.get(c).label(),
          list(ours[c]),
          list(theirs[c]),
          mean(ours[c]),
          sd(ours[c]),
          mean(theirs[c]),
          sd(theirs[c]),
          mean(ours[c]) - mean(theirs[c]),
          min(ours[c]),
          max(ours[c]),
          min(theirs[c]),
          max(theirs[c]));
    }
    if (!indexStats.isEmpty()) {
      System.out.println();
      System.out.println("==== INDEX STATISTICS (IvfPqProbe) ====");
      System.out.println(IvfPqProbe.STATS_HEADER);
      indexStats.forEach(System.out::println);
    }
  }

  static String list(double[] v) {
    List<String> out = new ArrayList<>();
    for (double x : v) {
      out.add(String.format("%.3f", x));
    }
    return String.join(", ", out);
  }

  static double mean(double[] v) {
    return Arrays.stream(v).average().orElse(Double.NaN);
  }

  static double sd(double[] v) {
    double m = mean(v);
    return v.length < 2
        ? 0
        : Math.sqrt(Arrays.stream(v).map(x -> (x - m) * (x - m)).sum() / (v.length - 1));
  }

  static double min(double[] v) {
    return Arrays.stream(v).min().orElse(Double.NaN);
  }

  static double max(double[] v) {
    return Arrays.stream(v).max().orElse(Double.NaN);
  }
}
