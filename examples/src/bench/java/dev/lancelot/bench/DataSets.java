package dev.lancelot.bench;

import static dev.lancelot.bench.VectorBenchData.log;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.query.eval.QuerySets;
import dev.lancelot.engine.vector.DistanceMetric;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * The named data sets of the vector benchmarks ({@code --data <name>}):
 *
 * <ul>
 *   <li>{@code synthetic-200k}: the original 200,000 × 128 isotropic clusters ({@link
 *       VectorBenchData}), l2.
 *   <li>{@code structured-<n>}: {@code n} rows (e.g. {@code structured-1000000}, {@code
 *       structured-1m}, {@code structured-200k}) of {@link StructuredData}, l2; generated on first
 *       use.
 *   <li>{@code minilm} or {@code minilm-<n>}: sentence embeddings of real text ({@link
 *       MinilmData}), 384 dimensions, cosine; generated beforehand by {@link BenchDataGen} (it
 *       takes minutes). {@code minilm} picks the largest {@code minilm-<n>} present.
 * </ul>
 *
 * <p>Cache layout of the generated sets, under {@code <workdir>/<name>/}:
 *
 * <ul>
 *   <li>{@code rows.lance/}: a Lance dataset written by lancelot, {@code (id int64, tenant_id
 *       int32, vector float32[dim])}, {@code id} = row number;
 *   <li>{@code queries.fvecs}: the held-out query vectors (none is a base row);
 *   <li>{@code manifest.txt}: {@code key: value} lines (source, counts, dimension, metric, seeds);
 *   <li>{@code truth-q<nq>.bin}: the exact top-10 of the first {@code nq} queries, big-endian
 *       {@code int64} ids, 10 per query (fewer rows than 10 never happens here), computed on first
 *       use.
 * </ul>
 */
final class DataSets {
  static final String NAMES = "synthetic-200k | structured-<rows> | minilm | minilm-<rows>";
  static final String MANIFEST = "manifest.txt";

  private DataSets() {}

  /** Refuses a name that is none of the known forms. */
  static void checkName(String name) {
    if (name.equals(VectorBenchData.SYNTHETIC) || name.equals("minilm")) {
      return;
    }
    if (name.startsWith("structured-")) {
      parseRows(name, name.substring("structured-".length()));
      return;
    }
    if (name.startsWith("minilm-")) {
      parseRows(name, name.substring("minilm-".length()));
      return;
    }
    throw new IllegalArgumentException(
        "Cannot use data set \"" + name + "\": unknown name. Known: " + NAMES + ".");
  }

  /** {@code 1000000}, {@code 1m}, {@code 200k}. */
  static int parseRows(String name, String n) {
    String s = n.toLowerCase(Locale.ROOT).replace("_", "");
    long mult = 1;
    if (s.endsWith("k")) {
      mult = 1_000;
      s = s.substring(0, s.length() - 1);
    } else if (s.endsWith("m")) {
      mult = 1_000_000;
      s = s.substring(0, s.length() - 1);
    }
    try {
      long rows = Long.parseLong(s) * mult;
      if (rows < 1000 || rows > 20_000_000) {
        throw new IllegalArgumentException(
            "Cannot use data set \""
                + name
                + "\": "
                + rows
                + " rows is outside 1,000 .. 20,000,000.");
      }
      return (int) rows;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "Cannot use data set \""
              + name
              + "\": \""
              + n
              + "\" is not a row count (e.g. 1000000, 1m, 200k).",
          e);
    }
  }

  /** The canonical name: {@code structured-1m} → {@code structured-1000000}. */
  static String canonical(String name) {
    checkName(name);
    if (name.startsWith("structured-")) {
      return "structured-" + parseRows(name, name.substring("structured-".length()));
    }
    if (name.startsWith("minilm-")) {
      return "minilm-" + parseRows(name, name.substring("minilm-".length()));
    }
    return name;
  }

  /**
   * Loads data set {@code name} with its first {@code nq} queries and their exact top-10,
   * generating or computing what is not cached yet (never inside a timed section: benchmarks load
   * first).
   */
  static VectorBenchData load(Path work, String name, int nq) throws IOException {
    String n = canonical(name);
    if (n.equals(VectorBenchData.SYNTHETIC)) {
      return VectorBenchData.load(work, 200_000, nq);
    }
    if (n.equals("minilm")) {
      n = largestMinilm(work);
    }
    Path dir = work.resolve(n);
    if (!Files.exists(dir.resolve(MANIFEST))) {
      if (n.startsWith("minilm-")) {
        throw new IllegalArgumentException(
            "Cannot load data set "
                + n
                + ": "
                + dir
                + " holds no "
                + MANIFEST
                + ". Generate it first (it takes minutes): "
                + BenchDataGen.command(work, "minilm"));
      }
      StructuredData.generate(dir, parseRows(n, n.substring("structured-".length())));
    }
    BenchArgs.relabel(n);
    return read(dir, n, nq);
  }

  /**
   * The concrete name of data set {@code name} ({@code minilm} → the largest {@code minilm-<n>}
   * present) and its row count when it is already generated, without loading it: {@code null} when
   * it is not generated yet.
   */
  static Map.Entry<String, Integer> generated(Path work, String name) throws IOException {
    String n = canonical(name);
    if (n.equals(VectorBenchData.SYNTHETIC)) {
      return Map.entry(n, 200_000);
    }
    if (n.equals("minilm")) {
      n = largestMinilm(work);
    }
    Path dir = work.resolve(n);
    if (!Files.exists(dir.resolve(MANIFEST))) {
      return null;
    }
    return Map.entry(n, Integer.parseInt(require(readManifest(dir), "rows", dir)));
  }

  private static String largestMinilm(Path work) throws IOException {
    String best = null;
    int bestRows = -1;
    if (Files.isDirectory(work)) {
      try (Stream<Path> s = Files.list(work)) {
        for (Path p : (Iterable<Path>) s::iterator) {
          String f = p.getFileName().toString();
          if (f.startsWith("minilm-") && Files.exists(p.resolve(MANIFEST))) {
            int rows = parseRows(f, f.substring("minilm-".length()));
            if (rows > bestRows) {
              bestRows = rows;
              best = f;
            }
          }
        }
      }
    }
    if (best == null) {
      throw new IllegalArgumentException(
          "Cannot load data set minilm: no generated minilm-<rows> directory under "
              + work
              + ". Generate it first (it takes minutes): "
              + BenchDataGen.command(work, "minilm"));
    }
    return best;
  }

  // ------------------------------------------------------------------ cache format

  /**
   * Writes a generated set under {@code dir}: rows.lance, queries.fvecs, manifest.txt (last, as the
   * marker).
   */
  static void write(
      Path dir,
      int dim,
      float[] vectors,
      int[] tenants,
      float[][] queries,
      Map<String, String> manifest)
      throws IOException {
    int rows = tenants.length;
    Files.createDirectories(dir);
    Files.deleteIfExists(dir.resolve(MANIFEST));
    try (Stream<Path> old = Files.list(dir)) {
      for (Path p : old.filter(p -> p.getFileName().toString().startsWith("truth-")).toList()) {
        Files.delete(p); // exact answers of a previous generation
      }
    }
    Path lance = dir.resolve("rows.lance");
    VectorBenchData.deleteTree(lance);
    VectorBenchData data =
        new VectorBenchData(
            dir.getFileName().toString(),
            dim,
            DistanceMetric.L2,
            rows,
            vectors,
            tenants,
            queries,
            null);
    try (BufferAllocator allocator = new RootAllocator()) {
      // In slices, so the Arrow IPC copy of a large set never needs one huge array.
      int slice = 200_000;
      for (int from = 0; from < rows; from += slice) {
        try (ArrowReader r =
            VectorBenchData.reader(
                allocator, data.ipc(allocator, from, Math.min(rows, from + slice)))) {
          Dataset.write(
                  lance.toString(),
                  r,
                  WriteOptions.of(from == 0 ? WriteMode.CREATE : WriteMode.APPEND))
              .close();
        }
      }
    }
    QuerySets.writeFvecs(dir.resolve("queries.fvecs"), queries);
    StringBuilder sb = new StringBuilder();
    manifest.forEach((k, v) -> sb.append(k).append(": ").append(v).append('\n'));
    Files.writeString(dir.resolve(MANIFEST), sb.toString());
    log("wrote " + dir + " (" + rows + " rows, " + queries.length + " queries)");
  }

  static Map<String, String> readManifest(Path dir) throws IOException {
    Map<String, String> out = new LinkedHashMap<>();
    for (String line : Files.readAllLines(dir.resolve(MANIFEST))) {
      int c = line.indexOf(": ");
      if (c > 0) {
        out.put(line.substring(0, c), line.substring(c + 2));
      }
    }
    return out;
  }

  private static VectorBenchData read(Path dir, String name, int nq) throws IOException {
    Map<String, String> manifest = readManifest(dir);
    int rows = Integer.parseInt(require(manifest, "rows", dir));
    int dim = Integer.parseInt(require(manifest, "dim", dir));
    DistanceMetric metric = DistanceMetric.parse(require(manifest, "metric", dir));
    float[] vectors = new float[Math.multiplyExact(rows, dim)];
    int[] tenants = new int[rows];
    boolean[] seen = new boolean[rows];
    try (Dataset ds = Dataset.open(dir.resolve("rows.lance").toString());
        CloseableIterator<VectorSchemaRoot> it =
            ds.newScan().columns("id", "tenant_id", "vector").batches()) {
      while (it.hasNext()) {
        VectorSchemaRoot b = it.next();
        BigIntVector ids = (BigIntVector) b.getVector("id");
        IntVector ts = (IntVector) b.getVector("tenant_id");
        FixedSizeListVector vec = (FixedSizeListVector) b.getVector("vector");
        Float4Vector values = (Float4Vector) vec.getDataVector();
        if (vec.getListSize() != dim) {
          throw new IllegalStateException(
              dir + ": vectors of " + vec.getListSize() + " dimensions, manifest says " + dim);
        }
        for (int r = 0; r < b.getRowCount(); r++) {
          int id = Math.toIntExact(ids.get(r));
          if (id < 0 || id >= rows || seen[id]) {
            throw new IllegalStateException(dir + ": row id " + id + " out of range or repeated");
          }
          seen[id] = true;
          tenants[id] = ts.get(r);
          for (int d = 0; d < dim; d++) {
            vectors[id * dim + d] = values.get(r * dim + d);
          }
        }
      }
    }
    for (int i = 0; i < rows; i++) {
      if (!seen[i]) {
        throw new IllegalStateException(dir + ": row " + i + " is missing from rows.lance");
      }
    }
    float[][] all = QuerySets.readFvecs(dir.resolve("queries.fvecs"), 0);
    if (nq > all.length) {
      throw new IllegalArgumentException(
          "Cannot run "
              + nq
              + " queries on "
              + name
              + ": it holds "
              + all.length
              + " held-out queries.");
    }
    float[][] queries = Arrays.copyOf(all, nq);
    VectorBenchData data =
        new VectorBenchData(name, dim, metric, rows, vectors, tenants, queries, null);
    long[][] truth = truth(dir, data, nq);
    log(
        "loaded "
            + name
            + " from "
            + dir
            + ": "
            + rows
            + " rows x "
            + dim
            + " dims, "
            + metric.lanceName()
            + ", "
            + nq
            + " of "
            + all.length
            + " queries; source: "
            + manifest.getOrDefault("source", "?"));
    return new VectorBenchData(name, dim, metric, rows, vectors, tenants, queries, truth);
  }

  private static String require(Map<String, String> manifest, String key, Path dir) {
    String v = manifest.get(key);
    if (v == null) {
      throw new IllegalStateException(dir.resolve(MANIFEST) + " has no \"" + key + "\" line");
    }
    return v;
  }

  private static long[][] truth(Path dir, VectorBenchData data, int nq) throws IOException {
    if (nq == 0) {
      return new long[0][]; // a job that runs no query (BuildTimingBenchmark) caches nothing
    }
    Path file = dir.resolve("truth-q" + nq + ".bin");
    int k = VectorBenchData.TRUTH_K;
    if (Files.exists(file) && Files.size(file) == (long) nq * k * Long.BYTES) {
      long[][] out = new long[nq][k];
      try (DataInputStream in =
          new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16))) {
        for (long[] t : out) {
          for (int j = 0; j < k; j++) {
            t[j] = in.readLong();
          }
        }
      }
      return out;
    }
    long t0 = System.nanoTime();
    long[][] out = data.exactTopK(data.queries, k, i -> true);
    for (long[] t : out) {
      if (t.length != k) {
        throw new IllegalStateException("exact top-" + k + " found only " + t.length + " rows");
      }
    }
    try (DataOutputStream o =
        new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file), 1 << 16))) {
      for (long[] t : out) {
        for (long id : t) {
          o.writeLong(id);
        }
      }
    }
    log(
        String.format(
            "computed the exact top-%d of %d queries in %.1f s (cached in %s)",
            k, nq, (System.nanoTime() - t0) / 1e9, file));
    return out;
  }
}
