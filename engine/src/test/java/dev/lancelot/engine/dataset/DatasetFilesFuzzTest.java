package dev.lancelot.engine.dataset;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.internal.format.ManifestFile;
import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.query.VectorSearch;
import dev.lancelot.engine.query.VectorSearchResult;
import dev.lancelot.engine.testing.LanceOracle;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.WriteParams;
import org.lance.index.DistanceType;

/**
 * F6 for every file of a dataset other than data files (those are fuzzed by CorruptionFuzzTest):
 * manifests, deletion files, transaction files and index files (IVF_PQ, IVF_HNSW_SQ, BTree pages),
 * all written by Lance 7. Random truncations and bit flips, then open, count, scan, vector search
 * through the index and a BTree-filtered scan: each either answers or fails with a {@link
 * LancelotException} naming the damaged file — never another exception type, an out of memory error
 * or a hang. Lance files carry no checksums, so a flipped bit inside a value can still decode to
 * another value; what the test forbids is every other way of going wrong.
 */
@Tag("oracle")
class DatasetFilesFuzzTest {
  static final int ITERATIONS = Integer.getInteger("lancelot.fuzz.iterations", 40);
  static final int DIM = 16;
  static BufferAllocator allocator;
  @TempDir static Path tmp;
  static Path pq;
  static Path hnsw;

  @BeforeAll
  static void writeWithLance() {
    allocator = new RootAllocator();
    pq = tmp.resolve("pq");
    LanceOracle.write(allocator, pq, 0, 1500, DIM, 3, WriteParams.WriteMode.CREATE, 500);
    try (var ds = LanceOracle.open(allocator, pq)) {
      ds.delete("id % 13 = 1");
    }
    LanceOracle.createIvfPq(allocator, pq, "vector", 4, 4);
    LanceOracle.createBTree(allocator, pq, "id");
    LanceOracle.write(allocator, pq, 1500, 200, DIM, 4, WriteParams.WriteMode.APPEND, 500);
    hnsw = tmp.resolve("hnsw");
    LanceOracle.write(allocator, hnsw, 0, 1200, DIM, 5, WriteParams.WriteMode.CREATE, 600);
    LanceOracle.createIvfHnswSq(allocator, hnsw, "vector", 2, DistanceType.L2);
  }

  @AfterAll
  static void close() {
    allocator.close();
  }

  @Test
  void damagedManifests() throws Exception {
    assertThat(
            fuzz(
                pq,
                f ->
                    f.getParent().getFileName().toString().equals("_versions")
                        && f.toString().endsWith(".manifest"),
                11))
        .isPositive();
  }

  @Test
  void damagedDeletionFiles() throws Exception {
    assertThat(fuzz(pq, f -> f.getParent().getFileName().toString().equals("_deletions"), 12))
        .isPositive();
  }

  /**
   * Transaction files are read when a commit checks what happened since its read version (the
   * append over version 1 in {@link #exercise}) and the manifest does not carry the transaction
   * itself; Lance 7 writes both, so this copy's manifests are rewritten without it.
   */
  @Test
  void damagedTransactionFiles() throws Exception {
    Path external = tmp.resolve("pq-external-transactions");
    copyTree(pq, external);
    try (Stream<Path> manifests = Files.list(external.resolve("_versions"))) {
      for (Path m : manifests.filter(f -> f.toString().endsWith(".manifest")).toList()) {
        ManifestFile mf =
            ManifestFile.read(HadoopFileIO.local().newInputFile(m.toUri().toString()));
        assertThat(mf.manifest().getTransactionFile())
            .as("%s names its transaction file", m)
            .isNotEmpty();
        Files.write(m, ManifestFile.write(mf.manifest(), mf.indices(), null));
      }
    }
    int refused =
        fuzz(external, f -> f.getParent().getFileName().toString().equals("_transactions"), 13);
    assertThat(refused)
        .as("damaged transaction files are read, so some damage is refused")
        .isPositive();
  }

  @Test
  void damagedIvfPqAndBTreeFiles() throws Exception {
    assertThat(fuzz(pq, f -> f.toString().contains("/_indices/"), 14)).isPositive();
  }

  @Test
  void damagedIvfHnswSqFiles() throws Exception {
    assertThat(fuzz(hnsw, f -> f.toString().contains("/_indices/"), 15)).isPositive();
  }

  /** Damages one file matching {@code which} per iteration in a fresh copy of {@code pristine}. */
  static int fuzz(Path pristine, Predicate<Path> which, long seed) throws Exception {
    List<Path> targets;
    try (Stream<Path> all = Files.walk(pristine)) {
      targets = all.filter(Files::isRegularFile).filter(which).sorted().toList();
    }
    assertThat(targets).as("files to damage in %s", pristine).isNotEmpty();
    Random r = new Random(seed);
    int refused = 0;
    List<String> bad = new java.util.ArrayList<>();
    for (int iteration = 0; iteration < ITERATIONS; iteration++) {
      Path copy = tmp.resolve(pristine.getFileName() + "-" + seed + "-" + iteration);
      copyTree(pristine, copy);
      Path target = copy.resolve(pristine.relativize(targets.get(r.nextInt(targets.size()))));
      String damage = damage(target, r);
      Throwable t;
      try {
        t =
            Assertions.assertTimeoutPreemptively(
                Duration.ofSeconds(30),
                () -> exercise(copy),
                () -> "hang after " + damage + " of " + target);
      } catch (OutOfMemoryError e) {
        throw new AssertionError("out of memory after " + damage + " of " + target, e);
      }
      if (t != null) {
        refused++;
        // A damaged column name in a manifest decodes as another name: the filter then names a
        // column
        // the schema lacks, which is the answer for that (undetectably) different schema.
        boolean renamedColumn =
            t instanceof dev.lancelot.engine.expr.FilterBindException
                && target.toString().endsWith(".manifest");
        if (!renamedColumn
            && (!(t instanceof LancelotException)
                || !messages(t).contains(target.getFileName().toString()))) {
          java.io.StringWriter trace = new java.io.StringWriter();
          t.printStackTrace(new java.io.PrintWriter(trace));
          bad.add(damage + " of " + target + ":\n" + trace);
        }
      }
      deleteTree(copy);
    }
    assertThat(bad).as("errors of another type or not naming the damaged file").isEmpty();
    System.out.println(
        pristine.getFileName()
            + " seed "
            + seed
            + ": refused "
            + refused
            + " of "
            + ITERATIONS
            + " damaged files");
    return refused;
  }

  /** Truncates the file or flips one to four bits (half of them in its last 4 KiB). */
  static String damage(Path file, Random r) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    if (bytes.length == 0 || r.nextInt(3) == 0) {
      int length = bytes.length == 0 ? 0 : r.nextInt(bytes.length);
      Files.write(file, java.util.Arrays.copyOf(bytes, length));
      return "truncation to " + length + " of " + bytes.length + " bytes";
    }
    int flips = 1 + r.nextInt(4);
    StringBuilder where = new StringBuilder();
    for (int f = 0; f < flips; f++) {
      int pos =
          r.nextBoolean()
              ? r.nextInt(bytes.length)
              : bytes.length - 1 - r.nextInt(Math.min(bytes.length, 4096));
      bytes[pos] ^= (byte) (1 << r.nextInt(8));
      where.append(where.length() == 0 ? "" : ",").append(pos);
    }
    Files.write(file, bytes);
    return "bit flips at " + where;
  }

  /** Every read path a user takes; null when all of them answered. */
  static Throwable exercise(Path dir) {
    try (Dataset ds = Dataset.open(dir.toString())) {
      ds.countRows();
      ds.countRows("id < 300");
      try (var batches = ds.newScan().filter("id >= 100 AND id < 700").batches()) {
        while (batches.hasNext()) {
          VectorSchemaRoot root = batches.next();
          root.getRowCount();
        }
      }
      float[] q = new float[DIM];
      for (int i = 0; i < DIM; i++) {
        q[i] = (float) Math.sin(i + 1.0);
      }
      try (VectorSearchResult res =
          VectorSearch.search(
              ds, VectorQuery.builder("vector").vector(q).k(10).nprobes(2).columns("id").build())) {
        res.rows().getRowCount();
      }
      try (VectorSearchResult res =
          VectorSearch.search(
              ds,
              VectorQuery.builder("vector")
                  .vector(q)
                  .k(5)
                  .nprobes(1)
                  .refineFactor(2)
                  .filter("id < 900")
                  .prefilter(true)
                  .columns("id")
                  .build())) {
        res.rows().getRowCount();
      }
      // a commit over an old version reads the transactions committed since (and replans: the
      // delete of version 2 touched the same fragment)
      try (Dataset first = ds.checkout(1)) {
        first.delete("id = 5").close();
      }
      return null;
    } catch (RuntimeException e) {
      return e;
    }
  }

  static String messages(Throwable t) {
    StringBuilder sb = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      sb.append(c.getMessage()).append('\n');
    }
    return sb.toString();
  }

  static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> all = Files.walk(from)) {
      for (Path p : (Iterable<Path>) all::iterator) {
        Path dest = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(dest);
        } else {
          Files.copy(p, dest);
        }
      }
    }
  }

  static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }
}
