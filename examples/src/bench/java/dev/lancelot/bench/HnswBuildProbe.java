package dev.lancelot.bench;

import static dev.lancelot.bench.VectorBenchData.log;

import dev.lancelot.engine.internal.index.vector.QueryScorer;
import dev.lancelot.engine.internal.index.vector.VectorStorage;
import dev.lancelot.engine.internal.index.vector.hnsw.HnswBuildParams;
import dev.lancelot.engine.internal.index.vector.hnsw.HnswBuilder;
import dev.lancelot.engine.internal.index.vector.sq.ScalarQuantizer;
import dev.lancelot.engine.internal.index.vector.sq.SqBuildParams;
import dev.lancelot.engine.internal.index.vector.sq.SqStorage;
import dev.lancelot.engine.vector.DistanceMetric;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Builds one HNSW graph over SQ codes the way an IVF_HNSW_SQ partition is built, at several
 * partition sizes, to see how the graph phase's cost per row grows with the partition size.
 *
 * <p>A "partition" of {@code s} rows is the {@code s} rows nearest to one row drawn at random: a
 * ball of neighbouring vectors, like an IVF cell. For each size it reports the build time per row
 * (best of {@code reps}, one thread) and, from one extra build through a counting storage, the
 * distances per row computed by the graph searches and by neighbour selection. With {@code threads}
 * > 1, that many threads build the same graph at once, each over its own copy of the codes, as an
 * index build does with several partitions; the time is then the slowest thread's.
 *
 * <p>Usage: {@code HnswBuildProbe <workdir> <sizes, comma-separated> <reps> [threads=1] [--data
 * <name>]}. Only lancelot runs; nothing is compared with Lance here.
 */
public final class HnswBuildProbe {
  private HnswBuildProbe() {}

  public static void main(String[] args) throws Exception {
    BenchArgs bench = BenchArgs.start("HnswBuildProbe", args, false);
    if (bench.rest.length < 3 || bench.rest.length > 4) {
      throw new IllegalArgumentException(
          "Usage: HnswBuildProbe <workdir> <sizes, comma-separated> <reps> [threads=1] [--data"
              + " <name>]");
    }
    int threads = bench.rest.length > 3 ? Integer.parseInt(bench.rest[3]) : 1;
    Path work = Path.of(bench.rest[0]);
    int[] sizes = Arrays.stream(bench.rest[1].split(",")).mapToInt(Integer::parseInt).toArray();
    int reps = Integer.parseInt(bench.rest[2]);
    VectorBenchData data = DataSets.load(work, bench.data, 1);
    int max = Arrays.stream(sizes).max().orElseThrow();
    int dim = data.dim;
    int[] ball = nearest(data, new SplittableRandom(11).nextInt(data.rows), max);
    log(
        String.format(
            Locale.ROOT,
            "%s: %,d rows × %d, partitions of %s rows around one row, %d reps, %d thread(s) building"
                + " at once",
            data.name,
            data.rows,
            dim,
            bench.rest[1],
            reps,
            threads));
    for (int s : sizes) {
      float[] sub = new float[s * dim];
      for (int i = 0; i < s; i++) {
        System.arraycopy(data.vectors, ball[i] * dim, sub, i * dim, dim);
      }
      DistanceMetric metric = data.metric;
      ScalarQuantizer q = ScalarQuantizer.train(sub, s, dim, metric, SqBuildParams.of(1));
      if (metric == DistanceMetric.COSINE) {
        for (int i = 0; i < s; i++) {
          DistanceMetric.normalize(sub, i * dim, dim);
        }
      }
      byte[] codes = q.encodeAll(sub, 0, s);
      SqStorage storage = SqStorage.of(q, codes, s, metric);
      // each thread builds over its own copy, so the threads' working sets add up as two
      // partitions built side by side do
      SqStorage[] copies = new SqStorage[threads];
      for (int t = 0; t < threads; t++) {
        copies[t] = t == 0 ? storage : SqStorage.of(q, codes.clone(), s, metric);
      }
      HnswBuildParams params = HnswBuildParams.defaults(1);
      double best = Double.MAX_VALUE;
      for (int r = 0; r < reps; r++) {
        long t0 = System.nanoTime();
        Thread[] running = new Thread[threads];
        for (int t = 0; t < threads; t++) {
          SqStorage mine = copies[t];
          running[t] = new Thread(() -> HnswBuilder.build(mine, params));
          running[t].start();
        }
        for (Thread t : running) {
          t.join();
        }
        best = Math.min(best, (System.nanoTime() - t0) / 1e6);
      }
      Counting counting = new Counting(storage);
      HnswBuilder.build(counting, params);
      log(
          String.format(
              Locale.ROOT,
              "rows %,7d: best %,9.1f ms = %6.1f µs/row; distances/row: search %,7.0f, selection %,7.0f;"
                  + " codes %,d KiB",
              s,
              best,
              best * 1000 / s,
              counting.scored / (double) s,
              counting.between / (double) s,
              codes.length / 1024));
    }
  }

  /** The {@code count} rows nearest to row {@code center} (l2), nearest first. */
  private static int[] nearest(VectorBenchData data, int center, int count) {
    int dim = data.dim;
    long[] keyed = new long[data.rows];
    for (int r = 0; r < data.rows; r++) {
      float d = 0;
      for (int j = 0; j < dim; j++) {
        float x = data.vectors[r * dim + j] - data.vectors[center * dim + j];
        d += x * x;
      }
      keyed[r] = ((long) Float.floatToIntBits(d) << 32) | r;
    }
    Arrays.sort(keyed);
    int[] out = new int[count];
    for (int i = 0; i < count; i++) {
      out[i] = (int) keyed[i];
    }
    return out;
  }

  /** Counts the distances a build computes, by kind. */
  private static final class Counting implements VectorStorage {
    private final VectorStorage inner;
    long scored;
    long between;

    Counting(VectorStorage inner) {
      this.inner = inner;
    }

    @Override
    public int size() {
      return inner.size();
    }

    @Override
    public int dimension() {
      return inner.dimension();
    }

    @Override
    public DistanceMetric metric() {
      return inner.metric();
    }

    @Override
    public QueryScorer scorer(float[] query) {
      return wrap(inner.scorer(query));
    }

    @Override
    public QueryScorer nodeScorer(int node) {
      return wrap(inner.nodeScorer(node));
    }

    @Override
    public float distanceBetween(int a, int b) {
      between++;
      return inner.distanceBetween(a, b);
    }

    private QueryScorer wrap(QueryScorer s) {
      return new QueryScorer() {
        @Override
        public float score(int node) {
          scored++;
          return s.score(node);
        }

        @Override
        public void score(int[] nodes, int count, float[] out) {
          scored += count;
          s.score(nodes, count, out);
        }

        @Override
        public void scoreRange(int from, int count, float[] out) {
          scored += count;
          s.scoreRange(from, count, out);
        }
      };
    }
  }
}
