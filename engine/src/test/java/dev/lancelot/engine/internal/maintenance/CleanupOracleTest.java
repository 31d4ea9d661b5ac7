package dev.lancelot.engine.internal.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.CleanupOptions;
import dev.lancelot.engine.CleanupResult;
import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.CompactionOptions;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.DatasetNotFoundException;
import dev.lancelot.engine.FragmentMetadata;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.distributed.DistributedWrite;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.ClusteredData;
import dev.lancelot.engine.testing.Rows;
import dev.lancelot.engine.vector.DistanceMetric;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.ReadOptions;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * Cleanup: old versions and the files only they referenced go, leftovers of failed writes go once
 * older than the 7-day window, and lance-core 7.0.0 reads every kept version identically.
 */
@Tag("oracle")
class CleanupOracleTest {
  static final int DIM = 8;
  static final List<String> COLUMNS = List.of("id", "tenant_id", "name", "vector");
  static BufferAllocator allocator;

  @BeforeAll
  static void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  static void tearDown() {
    allocator.close();
  }

  static Dataset write(Path dir, long firstId, int rows, WriteMode mode) {
    try (VectorSchemaRoot batch = ClusteredData.generate(allocator, firstId, rows, DIM, 4, 9);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch))) {
      return Dataset.write(dir.toString(), reader, WriteOptions.of(mode));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  static List<List<Object>> ours(Path dir, long version) {
    List<List<Object>> out = new ArrayList<>();
    try (Dataset ds = Dataset.open(dir.toString(), OpenOptions.defaults().withVersion(version));
        CloseableIterator<VectorSchemaRoot> it = ds.newScan().columns(COLUMNS).batches()) {
      while (it.hasNext()) {
        out.addAll(Rows.of(it.next()));
      }
    }
    return out;
  }

  static List<List<Object>> lance(Path dir, long version) {
    List<List<Object>> out = new ArrayList<>();
    try (org.lance.Dataset ds =
            org.lance.Dataset.open(
                allocator, dir.toString(), new ReadOptions.Builder().setVersion(version).build());
        LanceScanner scanner = ds.newScan(new ScanOptions.Builder().columns(COLUMNS).build());
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        out.addAll(Rows.of(reader.getVectorSchemaRoot()));
      }
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
    return out;
  }

  static List<String> files(Path dir, String sub) throws IOException {
    Path d = dir.resolve(sub);
    if (!Files.exists(d)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(d)) {
      return s.map(p -> p.getFileName().toString())
          .filter(n -> !n.startsWith("."))
          .sorted()
          .toList();
    }
  }

  static void age(Path file, Duration by) throws IOException {
    Files.setLastModifiedTime(file, FileTime.from(Instant.now().minus(by)));
  }

  /** Five versions: create, append, delete, index, compact. */
  static Map<Long, List<List<Object>>> history(Path dir) {
    write(dir, 0, 300, WriteMode.CREATE).close();
    write(dir, 300, 300, WriteMode.APPEND).close();
    try (Dataset ds = Dataset.open(dir.toString());
        Dataset deleted = ds.delete("name IS NULL");
        Dataset indexed =
            VectorIndexes.create(
                deleted,
                "vector",
                VectorIndexSpec.of(IndexType.IVF_FLAT, DistanceMetric.L2).withNumPartitions(2))) {
      assertThat(indexed.compact(CompactionOptions.defaults()).committed()).isTrue();
    }
    Map<Long, List<List<Object>>> rows = new LinkedHashMap<>();
    for (long v = 1; v <= 5; v++) {
      rows.put(v, ours(dir, v));
    }
    return rows;
  }

  @Test
  void retainVersionsRemovesOldVersionsAndTheFilesOnlyTheyReferenced(@TempDir Path dir)
      throws IOException {
    Map<Long, List<List<Object>>> rows = history(dir);
    List<String> dataBefore = files(dir, "data");
    List<String> indexesBefore = files(dir, "_indices");
    assertThat(dataBefore).hasSize(3); // two written, one compacted
    assertThat(indexesBefore).hasSize(2); // built, remapped
    try (Dataset ds = Dataset.open(dir.toString())) {
      CleanupResult r = ds.cleanup(CleanupOptions.retainVersions(2));
      // Version 4 (kept) still references the first data files, the deletion file and the index.
      assertThat(r.versionsRemoved()).containsExactly(1L, 2L, 3L);
      assertThat(r.dataFilesRemoved()).isZero();
      assertThat(r.deletionFilesRemoved()).isZero();
      assertThat(r.indexSegmentsRemoved()).isZero();
      assertThat(r.transactionFilesRemoved()).isEqualTo(3);
      assertThat(r.unreferencedFilesRemoved()).isZero();
      assertThat(r.bytesRemoved()).isPositive();
      assertThat(files(dir, "data")).isEqualTo(dataBefore);

      CleanupResult r2 = ds.cleanup(CleanupOptions.retainVersions(1));
      assertThat(r2.versionsRemoved()).containsExactly(4L);
      assertThat(r2.dataFilesRemoved()).isEqualTo(2);
      assertThat(r2.deletionFilesRemoved()).isEqualTo(2);
      assertThat(r2.indexSegmentsRemoved()).isEqualTo(1);
      assertThat(files(dir, "data")).hasSize(1);
      assertThat(files(dir, "_deletions")).isEmpty(); // the compacted fragment has none
      assertThat(files(dir, "_indices")).hasSize(1);
      assertThat(files(dir, "_transactions")).hasSize(1);
    }
    assertThat(ours(dir, 5)).isEqualTo(rows.get(5L));
    assertThat(lance(dir, 5)).isEqualTo(rows.get(5L));
    assertThatThrownBy(() -> Dataset.open(dir.toString(), OpenOptions.defaults().withVersion(3)))
        .isInstanceOf(DatasetNotFoundException.class)
        .hasMessageContaining("Cannot open version 3 of dataset")
        .hasMessageContaining("removed by cleanup")
        .hasMessageContaining("Available versions: 5 to 5");
  }

  @Test
  void olderThanKeepsVersionsCommittedSinceAndTaggedVersions(@TempDir Path dir) throws Exception {
    Map<Long, List<List<Object>>> rows = history(dir);
    try (org.lance.Dataset lance =
        org.lance.Dataset.open(allocator, dir.toString(), new ReadOptions.Builder().build())) {
      lance.tags().create("first", 1);
    }
    Instant afterV3;
    try (Dataset ds = Dataset.open(dir.toString())) {
      afterV3 = ds.versions().get(3).timestamp(); // version 4's commit time
      CleanupResult r = ds.cleanup(CleanupOptions.olderThan(afterV3));
      assertThat(r.versionsRemoved()).containsExactly(2L, 3L);
    }
    for (long v : new long[] {1, 4, 5}) {
      assertThat(ours(dir, v)).isEqualTo(rows.get(v));
      assertThat(lance(dir, v)).as("Lance reads version %d", v).isEqualTo(rows.get(v));
    }
    assertThatThrownBy(() -> Dataset.open(dir.toString(), OpenOptions.defaults().withVersion(2)))
        .hasMessageContaining("Cannot open version 2 of dataset")
        .hasMessageContaining("Available versions: 1, 4, 5");
  }

  @Test
  void leftoversOfFailedWritesGoOnlyOnceOlderThanTheWindow(@TempDir Path dir) throws IOException {
    history(dir);
    // A write whose task wrote data files but never committed, twice: one long ago, one just now.
    List<FragmentMetadata> old;
    List<FragmentMetadata> recent;
    try (VectorSchemaRoot batch = ClusteredData.generate(allocator, 1000, 50, DIM, 4, 9);
        Dataset ds = Dataset.open(dir.toString())) {
      old =
          DistributedWrite.writeFragments(
              dir.toString(),
              null,
              ds.lanceSchema(),
              List.of(batch).iterator(),
              WriteOptions.of(WriteMode.APPEND));
      recent =
          DistributedWrite.writeFragments(
              dir.toString(),
              null,
              ds.lanceSchema(),
              List.of(batch).iterator(),
              WriteOptions.of(WriteMode.APPEND));
    }
    Path oldFile = dir.resolve("data").resolve(old.get(0).dataFiles().get(0));
    Path recentFile = dir.resolve("data").resolve(recent.get(0).dataFiles().get(0));
    age(oldFile, Duration.ofDays(8));
    Path oldTxn =
        dir.resolve("_transactions").resolve("4-00000000-0000-0000-0000-000000000000.txn");
    Files.write(oldTxn, new byte[] {1, 2, 3});
    age(oldTxn, Duration.ofDays(8));
    Path oldIndexDir =
        Files.createDirectories(
            dir.resolve("_indices").resolve(java.util.UUID.randomUUID().toString()));
    age(Files.write(oldIndexDir.resolve("index.idx"), new byte[] {1}), Duration.ofDays(9));
    age(oldIndexDir, Duration.ofDays(9));
    Path tmpManifest = dir.resolve("_versions").resolve(".6.manifest.1234.tmp");
    Files.write(tmpManifest, new byte[] {1});
    age(tmpManifest, Duration.ofDays(8));

    try (Dataset ds = Dataset.open(dir.toString())) {
      CleanupResult r = ds.cleanup(CleanupOptions.retainVersions(5));
      assertThat(r.versionsRemoved()).isEmpty();
      assertThat(r.dataFilesRemoved()).isEqualTo(1);
      assertThat(r.transactionFilesRemoved()).isEqualTo(1);
      assertThat(r.indexSegmentsRemoved()).isEqualTo(1);
      assertThat(r.unreferencedFilesRemoved()).isEqualTo(4);
      assertThat(oldFile).doesNotExist();
      assertThat(oldTxn).doesNotExist();
      assertThat(oldIndexDir).doesNotExist();
      assertThat(tmpManifest).doesNotExist();
      assertThat(recentFile).exists(); // may belong to a write in progress

      CleanupResult forced =
          ds.cleanup(CleanupOptions.retainVersions(5).withDeleteUnverified(true));
      assertThat(forced.dataFilesRemoved()).isEqualTo(1);
      assertThat(recentFile).doesNotExist();
    }
    for (long v = 1; v <= 5; v++) {
      assertThat(lance(dir, v)).isEqualTo(ours(dir, v));
    }
  }

  @Test
  void branchesKeepTheVersionTheyStartFromAndTheFilesTheyShare(@TempDir Path dir) throws Exception {
    Map<Long, List<List<Object>>> rows = history(dir);
    List<List<Object>> branchRows;
    try (org.lance.Dataset lance =
        org.lance.Dataset.open(allocator, dir.toString(), new ReadOptions.Builder().build())) {
      lance.createBranch("dev/x", org.lance.Ref.ofMain(2)).close();
      lance.tags().create("on-dev", org.lance.Ref.ofBranch("dev/x", 2));
    }
    try (Dataset branch =
        Dataset.open(dir.toString(), OpenOptions.defaults().withBranch("dev/x"))) {
      branchRows = rowsOf(branch);
    }
    assertThat(branchRows).isEqualTo(rows.get(2L));
    List<String> dataBefore = files(dir, "data");
    try (Dataset ds = Dataset.open(dir.toString())) {
      CleanupResult r = ds.cleanup(CleanupOptions.retainVersions(1).withDeleteUnverified(true));
      // version 2 stays: the branch starts there (a tag on the branch does not keep main's 2)
      assertThat(r.versionsRemoved()).containsExactly(1L, 3L, 4L);
    }
    // the files version 2 (and so the branch) reads stay; compaction's inputs only 1-4 used go
    // unless the branch reads them
    assertThat(files(dir, "data")).isSubsetOf(dataBefore);
    assertThat(lance(dir, 2)).isEqualTo(rows.get(2L));
    assertThat(lance(dir, 5)).isEqualTo(rows.get(5L));
    try (Dataset branch =
        Dataset.open(dir.toString(), OpenOptions.defaults().withBranch("dev/x"))) {
      assertThat(rowsOf(branch)).isEqualTo(branchRows);
    }
    try (org.lance.Dataset lance =
            org.lance.Dataset.open(allocator, dir.toString(), new ReadOptions.Builder().build());
        org.lance.Dataset branch = lance.checkout(org.lance.Ref.ofBranch("dev/x"));
        LanceScanner scanner = branch.newScan(new ScanOptions.Builder().columns(COLUMNS).build());
        ArrowReader reader = scanner.scanBatches()) {
      List<List<Object>> theirs = new ArrayList<>();
      while (reader.loadNextBatch()) {
        theirs.addAll(Rows.of(reader.getVectorSchemaRoot()));
      }
      assertThat(theirs).isEqualTo(branchRows);
    }
    assertThat(Files.exists(dir.resolve("tree/dev/x/_versions"))).isTrue();
  }

  static List<List<Object>> rowsOf(Dataset ds) {
    List<List<Object>> out = new ArrayList<>();
    try (CloseableIterator<VectorSchemaRoot> it = ds.newScan().columns(COLUMNS).batches()) {
      while (it.hasNext()) {
        out.addAll(Rows.of(it.next()));
      }
    }
    return out;
  }

  @Test
  void aBranchDeletedFromMainsHistoryStillReadsAfterCleanup(@TempDir Path dir) throws Exception {
    Map<Long, List<List<Object>>> rows = history(dir);
    try (org.lance.Dataset lance =
        org.lance.Dataset.open(allocator, dir.toString(), new ReadOptions.Builder().build())) {
      lance.createBranch("old", org.lance.Ref.ofMain(3)).close();
    }
    // the branch's own version 4, written by Lance; main's version 3 is then only kept for it
    try (VectorSchemaRoot batch = ClusteredData.generate(allocator, 9000, 20, DIM, 4, 9)) {
      org.lance.Dataset.write()
          .allocator(allocator)
          .reader(dev.lancelot.engine.testing.ArrowStreams.readerOf(allocator, List.of(batch)))
          .uri(dir.resolve("tree/old").toString())
          .mode(org.lance.WriteParams.WriteMode.APPEND)
          .execute()
          .close();
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      CleanupResult r = ds.cleanup(CleanupOptions.retainVersions(1).withDeleteUnverified(true));
      assertThat(r.versionsRemoved()).containsExactly(1L, 2L, 4L);
    }
    try (Dataset branch = Dataset.open(dir.toString(), OpenOptions.defaults().withBranch("old"))) {
      assertThat(branch.version()).isEqualTo(4);
      List<List<Object>> got = rowsOf(branch);
      assertThat(got).hasSize(rows.get(3L).size() + 20);
      assertThat(got.subList(0, rows.get(3L).size())).isEqualTo(rows.get(3L));
    }
  }

  @Test
  void optionsAreChecked() {
    assertThatThrownBy(
            () ->
                new CleanupOptions(
                    java.util.Optional.empty(), java.util.OptionalInt.empty(), false))
        .hasMessageContaining("give older_than (a timestamp) and/or retain_versions");
    assertThatThrownBy(() -> CleanupOptions.retainVersions(0))
        .hasMessageContaining("retain_versions must be at least 1");
    assertThatThrownBy(() -> CleanupOptions.retainVersions(1).withParallelism(0))
        .hasMessageContaining("parallelism must be between 1 and 256, got 0");
    assertThatThrownBy(() -> CleanupOptions.retainVersions(1).withParallelism(257))
        .hasMessageContaining("parallelism must be between 1 and 256, got 257");
    assertThat(CleanupOptions.retainVersions(1).parallelism())
        .isEqualTo(CleanupOptions.DEFAULT_PARALLELISM);
  }

  /**
   * Manifests read and files deleted many at a time remove exactly what one at a time removes: two
   * copies of a dataset of 30 versions (appends, deletes, a compaction), cleaned with parallelism 1
   * and 16, keep the same files, report the same counts, and lance-core reads the kept version.
   */
  @Test
  void parallelCleanupRemovesWhatSequentialCleanupRemoves(@TempDir Path dir) throws Exception {
    Path one = dir.resolve("one");
    write(one, 0, 40, WriteMode.CREATE).close();
    for (int i = 1; i < 26; i++) {
      write(one, i * 40L, 40, WriteMode.APPEND).close();
    }
    try (Dataset ds = Dataset.open(one.toString());
        Dataset d1 = ds.delete("id % 7 = 0");
        Dataset d2 = d1.delete("id % 11 = 0")) {
      assertThat(d2.compact(CompactionOptions.defaults()).committed()).isTrue();
    }
    Path many = dir.resolve("many");
    copy(one, many);
    CleanupResult sequential;
    CleanupResult parallel;
    try (Dataset ds = Dataset.open(one.toString())) {
      sequential = ds.cleanup(CleanupOptions.retainVersions(1).withParallelism(1));
    }
    try (Dataset ds = Dataset.open(many.toString())) {
      parallel = ds.cleanup(CleanupOptions.retainVersions(1).withParallelism(16));
    }
    assertThat(sequential.versionsRemoved()).hasSizeGreaterThan(25);
    assertThat(sequential.dataFilesRemoved()).isPositive();
    assertThat(parallel).isEqualTo(sequential);
    for (String sub : List.of("data", "_deletions", "_transactions", "_versions", "_indices")) {
      assertThat(files(many, sub)).as(sub).isEqualTo(files(one, sub));
    }
    long latest;
    try (Dataset ds = Dataset.open(many.toString())) {
      latest = ds.version();
    }
    assertThat(lance(many, latest)).isEqualTo(ours(one, latest));
  }

  private static void copy(Path from, Path to) throws IOException {
    try (java.util.stream.Stream<Path> walk = Files.walk(from)) {
      for (Path p : walk.toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
  }
}
