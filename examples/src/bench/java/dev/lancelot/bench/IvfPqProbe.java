package dev.lancelot.bench;

import static dev.lancelot.bench.VectorBenchData.log;

import dev.lancelot.bench.VectorBenchData.Knobs;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentInfo;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.internal.index.vector.VectorSegmentSearcher;
import dev.lancelot.engine.internal.index.vector.ivf.IvfModel;
import dev.lancelot.engine.internal.index.vector.ivf.PartitionRanking;
import dev.lancelot.engine.internal.index.vector.pq.PqCodebook;
import dev.lancelot.engine.internal.index.vector.pq.PqStorage;
import dev.lancelot.engine.internal.index.vector.store.PartitionData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * Takes an IVF_PQ index of each engine apart, to tell where a recall difference comes from: the
 * build (IVF centroids, partition sizes, PQ codes) or the search. For one lancelot build (seed
 * {@code seed}) and one Lance 7 build of a data set of {@link DataSets} it prints, per index:
 * partition sizes, the IVF loss (mean squared distance of each indexed vector, normalized for
 * cosine, to its partition's centroid), the PQ error (mean squared distance of each residual to its
 * decoded codes, also relative to the residual's squared norm), and the IVF ceiling (the share of
 * each query's exact top-10 stored in its nprobes nearest partitions, i.e. recall with exact
 * distances inside the probed partitions). Then recall@10 of the IVF_PQ grid for the four pairs of
 * searching engine and index: lancelot can open Lance's index and lance-core lancelot's, so a
 * difference that follows the index comes from the build, one that follows the searcher from the
 * search.
 *
 * <p>Usage: {@code IvfPqProbe <workdir> [queries=1000] [seed=1] [--data <name>] [--reuse]
 * [--stats-only]}. {@code --reuse} keeps indexes built by an earlier run with the same seed (and
 * the Lance index under {@code <workdir>/probe-<data>/lance}); {@code --stats-only} prints the
 * statistics and skips the recall grid.
 */
public final class IvfPqProbe {
  private static final String INDEX = "vector_idx";
  static final String STATS_HEADER =
      "| index | partition sizes min / median / max (sd) | IVF loss | PQ error "
          + "| PQ error / |residual|² | IVF ceiling nprobes=1 | 4 | 16 |\n|---|---|---:|---:|---:|---:|---:|---:|";

  public static void main(String[] argv) throws Exception {
    boolean reuse = Arrays.asList(argv).contains("--reuse");
    boolean statsOnly = Arrays.asList(argv).contains("--stats-only");
    String[] rest =
        Arrays.stream(argv)
            .filter(a -> !a.equals("--reuse") && !a.equals("--stats-only"))
            .toArray(String[]::new);
    BenchArgs bench = BenchArgs.start("IvfPqProbe", rest, true);
    String[] args = bench.rest;
    Path work = Path.of(args.length > 0 ? args[0] : "/tmp/lancelot-vector-bench");
    int nq = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
    long seed = args.length > 2 ? Long.parseLong(args[2]) : 1;
    try (BufferAllocator allocator = new RootAllocator()) {
      VectorBenchData data = DataSets.load(work, bench.data, nq);
      Path source = data.source(allocator, work, data.rows);
      Path oursDir = work.resolve(data.workDir("probe")).resolve("lancelot-seed" + seed);
      Path lanceDir = work.resolve(data.workDir("probe")).resolve("lance");
      if (!reuse || !Files.exists(oursDir.resolve("_indices"))) {
        VectorBenchData.copyTree(source, oursDir);
        VectorIndexBenchmark.buildOurs(oursDir, IndexType.IVF_PQ, data.metric, seed);
      }
      if (!reuse || !Files.exists(lanceDir.resolve("_indices"))) {
        VectorBenchData.copyTree(source, lanceDir);
        VectorIndexBenchmark.buildLance(allocator, lanceDir, IndexType.IVF_PQ, data.metric);
      }
      System.out.printf(
          "IvfPqProbe: data set %s (%,d rows x %d, %s), IVF_PQ (%s), %d queries, k=10%n",
          data.name,
          data.rows,
          data.dim,
          data.metric.lanceName(),
          VectorIndexBenchmark.describe(IndexType.IVF_PQ, data.metric),
          nq);
      try (Dataset ours = Dataset.open(oursDir.toString());
          Dataset theirs = Dataset.open(lanceDir.toString());
          org.lance.Dataset oursL = VectorBenchData.openLance(allocator, oursDir);
          org.lance.Dataset theirsL = VectorBenchData.openLance(allocator, lanceDir)) {
        System.out.println();
        System.out.println(STATS_HEADER);
        System.out.println(stats("lancelot seed " + seed, ours, data));
        System.out.println(stats("Lance 7", theirs, data));
        if (statsOnly) {
          return;
        }

        List<Knobs> cells =
            List.of(
                Knobs.ann(1, null, null),
                Knobs.ann(4, null, null),
                Knobs.ann(16, null, null),
                Knobs.ann(64, null, null),
                Knobs.ann(1, 4, null),
                Knobs.ann(4, 4, null),
                Knobs.ann(16, 4, null),
                Knobs.ann(64, 4, null));
        System.out.println();
        System.out.println(
            "| parameters | lancelot searches lancelot's index | lancelot searches Lance's | "
                + "Lance searches Lance's | Lance searches lancelot's |");
        System.out.println("|---|---:|---:|---:|---:|");
        for (Knobs plain : cells) {
          Knobs k = plain.metric(data.metric);
          double[] r = new double[4];
          for (int q = 0; q < nq; q++) {
            r[0] +=
                VectorBenchData.recall(
                    VectorBenchData.ours(ours, data.queries[q], k), data.truth[q]);
            r[1] +=
                VectorBenchData.recall(
                    VectorBenchData.ours(theirs, data.queries[q], k), data.truth[q]);
            r[2] +=
                VectorBenchData.recall(
                    VectorBenchData.lance(theirsL, data.queries[q], k), data.truth[q]);
            r[3] +=
                VectorBenchData.recall(
                    VectorBenchData.lance(oursL, data.queries[q], k), data.truth[q]);
          }
          System.out.printf(
              "| %s | %.3f | %.3f | %.3f | %.3f |%n",
              k.label(), r[0] / nq, r[1] / nq, r[2] / nq, r[3] / nq);
        }
      }
    }
    log("done");
  }

  /**
   * One table row of index statistics, computed from the stored partitions and the data set's
   * vectors.
   */
  static String stats(String label, Dataset ds, VectorBenchData data) {
    Map<Long, Integer> ids = rowIds(ds);
    IndexSegment segment = ds.indexes().segments(INDEX).get(0);
    VectorSegmentSearcher searcher = VectorSegmentSearcher.open(ds, segment);
    IvfModel ivf = searcher.reader().ivf();
    PqCodebook codebook = searcher.reader().codebook();
    int dim = data.dim;
    int m = codebook.numSubVectors();
    int subDim = codebook.subDimension();
    int parts = searcher.numPartitions();
    int[] partitionOf = new int[data.rows];
    Arrays.fill(partitionOf, -1);
    int[] sizes = new int[parts];
    double ivfLoss = 0;
    double pqError = 0;
    double relError = 0;
    long n = 0;
    float[] residual = new float[dim];
    for (int p = 0; p < parts; p++) {
      PartitionData partition = searcher.partition(p);
      PqStorage storage = (PqStorage) partition.storage();
      sizes[p] = partition.size();
      for (int node = 0; node < partition.size(); node++) {
        int id = ids.get(partition.rowIds()[node]);
        partitionOf[id] = p;
        float[] x = ivf.prepareQuery(Arrays.copyOfRange(data.vectors, id * dim, (id + 1) * dim));
        ivf.residual(x, 0, p, residual, 0);
        double norm = 0;
        double err = 0;
        for (int s = 0; s < m; s++) {
          int c = storage.code(node, s);
          for (int d = 0; d < subDim; d++) {
            float r = residual[s * subDim + d];
            float diff = r - codebook.centroidValue(s, c, d);
            norm += r * r;
            err += diff * diff;
          }
        }
        ivfLoss += norm;
        pqError += err;
        relError += norm == 0 ? 0 : err / norm;
        n++;
      }
    }
    double[] ceiling = new double[3];
    int[] probes = {1, 4, 16};
    for (int q = 0; q < data.queries.length; q++) {
      PartitionRanking ranking = searcher.rankPartitions(data.queries[q]);
      for (int i = 0; i < probes.length; i++) {
        int hits = 0;
        for (long t : data.truth[q]) {
          int p = partitionOf[(int) t];
          for (int j = 0; j < probes[i] && j < ranking.size(); j++) {
            if (ranking.partitions()[j] == p) {
              hits++;
              break;
            }
          }
        }
        ceiling[i] += (double) hits / data.truth[q].length;
      }
    }
    int[] sorted = sizes.clone();
    Arrays.sort(sorted);
    double mean = (double) n / parts;
    double var = Arrays.stream(sizes).mapToDouble(s -> (s - mean) * (s - mean)).sum() / parts;
    int nq = data.queries.length;
    return String.format(
        "| %s | %d / %d / %d (%.1f) | %.5f | %.5f | %.4f | %.3f | %.3f | %.3f |",
        label,
        sorted[0],
        sorted[parts / 2],
        sorted[parts - 1],
        Math.sqrt(var),
        ivfLoss / n,
        pqError / n,
        relError / n,
        ceiling[0] / nq,
        ceiling[1] / nq,
        ceiling[2] / nq);
  }

  /**
   * Row address → row number ({@code id}) of a dataset written in one go: fragments in order, no
   * deletions.
   */
  private static Map<Long, Integer> rowIds(Dataset ds) {
    Map<Long, Integer> out = new HashMap<>();
    int id = 0;
    for (FragmentInfo f : ds.fragments()) {
      if (f.deletedRows() != 0) {
        throw new IllegalStateException("fragment " + f.id() + " has deleted rows");
      }
      for (long r = 0; r < f.physicalRows(); r++) {
        out.put((f.id() << 32) | r, id++);
      }
    }
    return out;
  }
}
