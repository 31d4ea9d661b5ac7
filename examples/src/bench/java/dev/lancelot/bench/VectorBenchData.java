package dev.lancelot.bench;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.query.VectorSearch;
import dev.lancelot.engine.query.VectorSearchResult;
import dev.lancelot.engine.vector.DistanceMetric;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntPredicate;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.ReadOptions;
import org.lance.WriteParams;
import org.lance.index.DistanceType;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.Query;
import org.lance.ipc.ScanOptions;

/**
 * Shared data and measurement helpers of the vector benchmarks. A benchmark works on one named data
 * set ({@link DataSets}: {@code synthetic-200k}, {@code structured-<n>}, {@code minilm}); all have
 * rows {@code (id int64, tenant_id int32, vector float32[dim])}, held-out queries and their exact
 * top-10 under the set's metric. The original data set, {@code synthetic-200k}: {@code rows} rows
 * of {@code (id int64, tenant_id int32, vector float32[128])}; vector {@code i} is the center of
 * cluster {@code i % clusters} (centers N(0, 4²) per coordinate) plus N(0, 1) noise; tenant ids are
 * skewed ({@code floor(100 u³)}: tenant 0 holds ~21.5% of rows, tenant 42 ~0.6%, tenant 99 ~0.3%).
 * Queries come from the same distribution (random cluster + noise). Everything is seeded, generated
 * once and cached under {@code <workdir>/data}: the raw vectors, tenant ids, queries, and the exact
 * top-k of every query (brute force, all cores).
 */
final class VectorBenchData {
  static final int DIM = 128; // of synthetic-200k
  static final String SYNTHETIC = "synthetic-200k";
  static final int CLUSTERS = 1000;
  static final long DATA_SEED = 20240501L;
  static final long QUERY_SEED = 7L;
  static final int TRUTH_K = 10;

  final String name;
  final int dim;
  final DistanceMetric metric;
  final int rows;
  final float[] vectors; // rows × dim
  final int[] tenants;
  final float[][] queries;
  final long[][] truth; // exact top-10 ids per query

  VectorBenchData(
      String name,
      int dim,
      DistanceMetric metric,
      int rows,
      float[] vectors,
      int[] tenants,
      float[][] queries,
      long[][] truth) {
    this.name = name;
    this.dim = dim;
    this.metric = metric;
    this.rows = rows;
    this.vectors = vectors;
    this.tenants = tenants;
    this.queries = queries;
    this.truth = truth;
  }

  /**
   * Rows indexed before the append in the end-to-end benchmarks: the first 90% (180,000 of
   * synthetic-200k).
   */
  int indexedRows() {
    return rows / 10 * 9;
  }

  /**
   * A benchmark's cache directory for this data set: {@code base} itself for synthetic-200k (where
   * earlier runs left it), {@code base-<name>} for the others.
   */
  String workDir(String base) {
    return workDir(name, base);
  }

  /** {@link #workDir(String)} of data set {@code name}. */
  static String workDir(String name, String base) {
    return name.equals(SYNTHETIC) ? base : base + "-" + name;
  }

  /**
   * Loads (or generates and caches) {@code rows} rows and {@code nq} queries with their exact
   * top-10.
   */
  static VectorBenchData load(Path work, int rows, int nq) throws IOException {
    Path dir = work.resolve("data");
    Files.createDirectories(dir);
    Path file = dir.resolve("vectors-" + rows + "-q" + nq + ".bin");
    if (Files.exists(file)) {
      try (DataInputStream in =
          new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 20))) {
        float[] v = new float[rows * DIM];
        for (int i = 0; i < v.length; i++) {
          v[i] = in.readFloat();
        }
        int[] t = new int[rows];
        for (int i = 0; i < rows; i++) {
          t[i] = in.readInt();
        }
        float[][] q = new float[nq][DIM];
        for (float[] qq : q) {
          for (int d = 0; d < DIM; d++) {
            qq[d] = in.readFloat();
          }
        }
        long[][] truth = new long[nq][TRUTH_K];
        for (long[] tt : truth) {
          for (int j = 0; j < TRUTH_K; j++) {
            tt[j] = in.readLong();
          }
        }
        log("loaded cached data " + file);
        return new VectorBenchData(SYNTHETIC, DIM, DistanceMetric.L2, rows, v, t, q, truth);
      }
    }
    long t0 = System.nanoTime();
    float[][] centers = new float[CLUSTERS][DIM];
    Random r = new Random(DATA_SEED);
    for (float[] c : centers) {
      for (int d = 0; d < DIM; d++) {
        c[d] = (float) (r.nextGaussian() * 4);
      }
    }
    float[] v = new float[rows * DIM];
    int[] t = new int[rows];
    Random noise = new Random(DATA_SEED + 1);
    for (int i = 0; i < rows; i++) {
      float[] c = centers[i % CLUSTERS];
      for (int d = 0; d < DIM; d++) {
        v[i * DIM + d] = c[d] + (float) noise.nextGaussian();
      }
      t[i] = (int) Math.min(99, Math.floor(Math.pow(noise.nextDouble(), 3) * 100));
    }
    Random qr = new Random(QUERY_SEED);
    float[][] q = new float[nq][DIM];
    for (float[] qq : q) {
      float[] c = centers[qr.nextInt(CLUSTERS)];
      for (int d = 0; d < DIM; d++) {
        qq[d] = c[d] + (float) qr.nextGaussian();
      }
    }
    long[][] truth = exactTopK(v, rows, DIM, DistanceMetric.L2, q, TRUTH_K, i -> true);
    log(
        String.format(
            "generated %,d rows, %,d queries and their exact top-%d in %.1f s",
            rows, nq, TRUTH_K, (System.nanoTime() - t0) / 1e9));
    try (DataOutputStream out =
        new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file), 1 << 20))) {
      for (float f : v) {
        out.writeFloat(f);
      }
      for (int x : t) {
        out.writeInt(x);
      }
      for (float[] qq : q) {
        for (float f : qq) {
          out.writeFloat(f);
        }
      }
      for (long[] tt : truth) {
        for (long id : tt) {
          out.writeLong(id);
        }
      }
    }
    return new VectorBenchData(SYNTHETIC, DIM, DistanceMetric.L2, rows, v, t, q, truth);
  }

  /**
   * Exact top-k ids of each query among this set's rows {@code i} with {@code keep(i)}, under its
   * metric.
   */
  long[][] exactTopK(float[][] q, int k, IntPredicate keep) {
    return exactTopK(vectors, rows, dim, metric, q, k, keep);
  }

  /**
   * Exact top-k ids of each query among rows {@code i} with {@code keep(i)}; l2 or cosine (smaller
   * is closer, as Lance); all cores. Ties keep the lower id.
   */
  static long[][] exactTopK(
      float[] v, int rows, int dim, DistanceMetric metric, float[][] q, int k, IntPredicate keep) {
    if (metric != DistanceMetric.L2 && metric != DistanceMetric.COSINE) {
      throw new IllegalArgumentException("exact top-k supports l2 and cosine, not " + metric);
    }
    float[] norms = metric == DistanceMetric.COSINE ? norms(v, rows, dim) : null;
    int threads = Runtime.getRuntime().availableProcessors();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      long[][] out = new long[q.length][];
      List<Future<?>> fs = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int first = t;
        fs.add(
            pool.submit(
                () -> {
                  for (int qi = first; qi < q.length; qi += threads) {
                    out[qi] = topK(v, rows, dim, norms, q[qi], k, keep);
                  }
                }));
      }
      for (Future<?> f : fs) {
        f.get();
      }
      return out;
    } catch (Exception e) {
      throw new RuntimeException(e);
    } finally {
      pool.shutdown();
    }
  }

  private static float[] norms(float[] v, int rows, int dim) {
    float[] out = new float[rows];
    for (int i = 0; i < rows; i++) {
      double s = 0;
      for (int d = 0; d < dim; d++) {
        float x = v[i * dim + d];
        s += x * x;
      }
      out[i] = (float) Math.sqrt(s);
    }
    return out;
  }

  /** {@code norms} null: squared l2; otherwise cosine distance {@code 1 - a·b / (|a| |b|)}. */
  private static long[] topK(
      float[] v, int rows, int dim, float[] norms, float[] q, int k, IntPredicate keep) {
    double qn = 0;
    for (float x : q) {
      qn += x * x;
    }
    float qNorm = (float) Math.sqrt(qn);
    // Sorted insertion into a k-slot list: k is small.
    float[] bestD = new float[k];
    long[] bestI = new long[k];
    Arrays.fill(bestD, Float.POSITIVE_INFINITY);
    Arrays.fill(bestI, -1);
    for (int i = 0; i < rows; i++) {
      if (!keep.test(i)) {
        continue;
      }
      float s = 0;
      int off = i * dim;
      if (norms == null) {
        for (int d = 0; d < dim; d++) {
          float x = v[off + d] - q[d];
          s += x * x;
        }
      } else {
        for (int d = 0; d < dim; d++) {
          s += v[off + d] * q[d];
        }
        s = 1 - s / (norms[i] * qNorm);
      }
      if (s < bestD[k - 1]) {
        int j = k - 1;
        while (j > 0 && bestD[j - 1] > s) {
          bestD[j] = bestD[j - 1];
          bestI[j] = bestI[j - 1];
          j--;
        }
        bestD[j] = s;
        bestI[j] = i;
      }
    }
    int n = 0;
    while (n < k && bestI[n] >= 0) {
      n++;
    }
    return Arrays.copyOf(bestI, n);
  }

  // ------------------------------------------------------------------ datasets

  /** Rows [from, to) as an Arrow IPC stream (to feed either writer). */
  byte[] ipc(BufferAllocator allocator, int from, int to) throws IOException {
    return FormatBenchmark.ipc(
        allocator,
        from,
        to,
        dim,
        new FormatBenchmark.RowValues() {
          @Override
          public int tenant(int row) {
            return tenants[row];
          }

          @Override
          public float value(int row, int d) {
            return vectors[row * dim + d];
          }
        });
  }

  static ArrowReader reader(BufferAllocator allocator, byte[] ipc) {
    return FormatBenchmark.reader(allocator, ipc);
  }

  /**
   * The source dataset of rows [0, n), written once by Lance (one fragment) and cached; the
   * benchmarks copy it, so both engines start from byte-identical data files.
   */
  Path source(BufferAllocator allocator, Path work, int n) throws IOException {
    Path dir = work.resolve(workDir("data")).resolve("source-" + n);
    if (Files.exists(dir.resolve("_versions"))) {
      return dir;
    }
    deleteTree(dir);
    try (ArrowReader r = reader(allocator, ipc(allocator, 0, n))) {
      org.lance.Dataset.write()
          .allocator(allocator)
          .reader(r)
          .uri(dir.toString())
          .mode(WriteParams.WriteMode.CREATE)
          .execute()
          .close();
    }
    log("wrote source dataset " + dir);
    return dir;
  }

  static void copyTree(Path from, Path to) throws IOException {
    deleteTree(to);
    try (Stream<Path> s = Files.walk(from)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  /** Bytes of all files under {@code dir} (0 when absent). */
  static long sizeOf(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return 0;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile)
          .mapToLong(
              p -> {
                try {
                  return Files.size(p);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              })
          .sum();
    }
  }

  static org.lance.Dataset openLance(BufferAllocator allocator, Path dir) {
    return org.lance.Dataset.open(allocator, dir.toString(), new ReadOptions.Builder().build());
  }

  // ------------------------------------------------------------------ queries

  /**
   * Knobs of one nearest query, applied identically to both engines; null = the engine's default.
   */
  record Knobs(
      int k,
      Integer nprobes,
      Integer refine,
      Integer ef,
      boolean useIndex,
      String filter,
      boolean prefilter,
      DistanceMetric metric) {
    /** An l2 ANN query; {@link #metric(DistanceMetric)} for the data set's metric. */
    static Knobs ann(int nprobes, Integer refine, Integer ef) {
      return new Knobs(TRUTH_K, nprobes, refine, ef, true, null, false, DistanceMetric.L2);
    }

    Knobs metric(DistanceMetric m) {
      return new Knobs(k, nprobes, refine, ef, useIndex, filter, prefilter, m);
    }

    String label() {
      StringBuilder b = new StringBuilder();
      if (!useIndex) {
        b.append("flat");
      }
      if (nprobes != null) {
        b.append("nprobes=").append(nprobes);
      }
      b.append(refine == null ? " refine=none" : " refine=" + refine);
      if (ef != null) {
        b.append(" ef=").append(ef);
      }
      if (filter != null) {
        b.append(prefilter ? " prefilter " : " postfilter ").append(filter);
      }
      return b.toString().trim();
    }
  }

  static VectorQuery.Builder ourQuery(Knobs k) {
    VectorQuery.Builder b =
        VectorQuery.builder("vector")
            .k(k.k())
            .useIndex(k.useIndex())
            .columns("id")
            .metric(k.metric());
    if (k.nprobes() != null) {
      b.nprobes(k.nprobes());
    }
    if (k.refine() != null) {
      b.refineFactor(k.refine());
    }
    if (k.ef() != null) {
      b.ef(k.ef());
    }
    if (k.filter() != null) {
      b.filter(k.filter()).prefilter(k.prefilter());
    }
    return b;
  }

  /** lancelot: one query, returns the ids found. */
  static long[] ours(Dataset ds, float[] q, Knobs k) {
    try (VectorSearchResult r = VectorSearch.search(ds, ourQuery(k).vector(q).build())) {
      BigIntVector ids = (BigIntVector) r.rows().getVector("id");
      long[] out = new long[r.rowCount()];
      for (int i = 0; i < out.length; i++) {
        out[i] = ids.get(i);
      }
      return out;
    }
  }

  /** lancelot: one call with many query vectors; returns the total rows returned. */
  static int oursBatch(Dataset ds, float[][] qs, Knobs k) {
    try (VectorSearchResult r = VectorSearch.search(ds, ourQuery(k).vectors(qs).build())) {
      return r.rowCount();
    }
  }

  /** Lance 7: one nearest query through a scanner, returns the ids found. */
  static long[] lance(org.lance.Dataset ds, float[] q, Knobs k) {
    Query.Builder qb =
        new Query.Builder()
            .setColumn("vector")
            .setKey(q)
            .setK(k.k())
            .setUseIndex(k.useIndex())
            .setDistanceType(DistanceType.valueOf(lanceDistance(k.metric())));
    if (k.nprobes() != null) {
      qb.setNprobes(k.nprobes());
    }
    if (k.refine() != null) {
      qb.setRefineFactor(k.refine());
    }
    if (k.ef() != null) {
      qb.setEf(k.ef());
    }
    // lancelot always returns _distance; asking Lance for it too keeps the outputs alike.
    ScanOptions.Builder opts =
        new ScanOptions.Builder().nearest(qb.build()).columns(List.of("id", "_distance"));
    if (k.filter() != null) {
      opts.filter(k.filter()).prefilter(k.prefilter());
    }
    long[] out = new long[k.k()];
    int n = 0;
    try (LanceScanner scanner = ds.newScan(opts.build());
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        BigIntVector ids = (BigIntVector) root.getVector("id");
        for (int i = 0; i < root.getRowCount(); i++) {
          if (n == out.length) {
            out = Arrays.copyOf(out, n * 2);
          }
          out[n++] = ids.get(i);
        }
      }
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
    return Arrays.copyOf(out, n);
  }

  /** The name of {@code m} among lance-core's {@code DistanceType} constants. */
  static String lanceDistance(DistanceMetric m) {
    switch (m) {
      case L2:
        return "L2";
      case COSINE:
        return "Cosine";
      case DOT:
        return "Dot";
      default:
        throw new IllegalArgumentException("no lance-core distance type for " + m);
    }
  }

  static double recall(long[] got, long[] truth) {
    if (truth.length == 0) {
      return 1;
    }
    Set<Long> t = new HashSet<>();
    for (long x : truth) {
      t.add(x);
    }
    int hit = 0;
    for (long x : got) {
      if (t.contains(x)) {
        hit++;
      }
    }
    return (double) hit / truth.length;
  }

  /** Latencies (ns) and recall of one engine on one configuration. */
  static final class Series {
    final long[] nanos;
    double recallSum;
    long rowsSum;
    int n;
    String error;

    Series(int capacity) {
      nanos = new long[capacity];
    }

    void add(long ns, double recall, int rowsReturned) {
      nanos[n++] = ns;
      recallSum += recall;
      rowsSum += rowsReturned;
    }

    double recall() {
      return recallSum / n;
    }

    double percentileMs(double p) {
      long[] s = Arrays.copyOf(nanos, n);
      Arrays.sort(s);
      int i = (int) Math.ceil(p * n) - 1;
      return s[Math.max(0, Math.min(n - 1, i))] / 1e6;
    }

    double meanMs() {
      long t = 0;
      for (int i = 0; i < n; i++) {
        t += nanos[i];
      }
      return t / 1e6 / n;
    }
  }

  interface Searcher {
    long[] search(float[] q);
  }

  /**
   * Runs {@code warmup} untimed then all queries timed on both engines, interleaved query by query
   * (which engine goes first alternates), one query in flight at a time.
   */
  static Series[] sideBySide(
      float[][] qs, long[][] truth, int warmup, Searcher ours, Searcher lance) {
    Series a = new Series(qs.length);
    Series b = new Series(qs.length);
    try {
      for (int i = 0; i < warmup; i++) {
        ours.search(qs[i % qs.length]);
      }
    } catch (RuntimeException e) {
      a.error = e.getMessage();
    }
    try {
      for (int i = 0; i < warmup; i++) {
        lance.search(qs[i % qs.length]);
      }
    } catch (RuntimeException e) {
      b.error = e.getMessage();
    }
    for (int i = 0; i < qs.length; i++) {
      for (int turn = 0; turn < 2; turn++) {
        boolean oursTurn = (turn == 0) == (i % 2 == 0);
        Series s = oursTurn ? a : b;
        if (s.error != null) {
          continue;
        }
        Searcher e = oursTurn ? ours : lance;
        try {
          long t = System.nanoTime();
          long[] got = e.search(qs[i]);
          long ns = System.nanoTime() - t;
          s.add(ns, truth == null ? 0 : recall(got, truth[i]), got.length);
        } catch (RuntimeException ex) {
          s.error = String.valueOf(ex.getMessage());
        }
      }
    }
    return new Series[] {a, b};
  }

  /**
   * One untimed pass of every query on both engines with {@code widest} (probing the most
   * partitions), so all partitions either engine will touch are loaded and its code compiled before
   * anything is timed: the tables report steady-state latency, not first-touch I/O.
   */
  static void prewarm(float[][] qs, Searcher ours, Searcher lance) {
    long t = System.nanoTime();
    for (float[] q : qs) {
      ours.search(q);
    }
    long o = System.nanoTime() - t;
    t = System.nanoTime();
    for (float[] q : qs) {
      lance.search(q);
    }
    log(
        String.format(
            "pre-warm pass of %d queries: lancelot %.1f s, Lance %.1f s (untimed in the tables)",
            qs.length, o / 1e9, (System.nanoTime() - t) / 1e9));
  }

  // ------------------------------------------------------------------ output

  static String load() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException e) {
      return "n/a";
    }
  }

  static void log(String msg) {
    System.out.printf("[%tT load %s] %s%n", System.currentTimeMillis(), load(), msg);
    System.out.flush();
  }

  static String ms(double v) {
    return v >= 100
        ? String.format("%.0f", v)
        : v >= 10 ? String.format("%.1f", v) : String.format("%.2f", v);
  }

  static String mib(long bytes) {
    return String.format("%.1f", bytes / (1024.0 * 1024.0));
  }
}
