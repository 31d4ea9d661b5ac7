package dev.lancelot.engine;

import static dev.lancelot.engine.TagsAndBranchesOracleTest.history;
import static dev.lancelot.engine.TagsAndBranchesOracleTest.lanceOpen;
import static dev.lancelot.engine.TagsAndBranchesOracleTest.lanceRows;
import static dev.lancelot.engine.TagsAndBranchesOracleTest.ours;
import static dev.lancelot.engine.TagsAndBranchesOracleTest.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.internal.table.Operation;
import dev.lancelot.engine.internal.table.Snapshot;
import dev.lancelot.engine.testing.LanceOracle;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Ref;
import org.lance.operation.Restore;

/**
 * Restore against lance-core 7.0.0, both ways: a version lancelot restores (also one Lance indexed)
 * reads in Lance row for row as the old version did, with its index and a {@code Restore}
 * transaction; a version Lance restores reads the same in lancelot; bad input is refused without
 * changing anything.
 */
@org.junit.jupiter.api.Tag("oracle")
class RestoreOracleTest {
  static BufferAllocator allocator;

  @BeforeAll
  static void setUp() {
    allocator = new RootAllocator();
    TagsAndBranchesOracleTest.allocator = allocator; // its helpers write and read with it
  }

  @AfterAll
  static void tearDown() {
    TagsAndBranchesOracleTest.allocator = null;
    allocator.close();
  }

  static List<List<Object>> lanceAt(Path dir, long version, String filter) {
    try (org.lance.Dataset root = lanceOpen(dir);
        org.lance.Dataset at = root.checkout(Ref.ofMain(version))) {
      return lanceRows(at, filter);
    }
  }

  /** The names of the files under {@code dir/sub}. */
  static TreeSet<String> files(Path dir, String sub) throws IOException {
    if (!Files.isDirectory(dir.resolve(sub))) {
      return new TreeSet<>();
    }
    try (Stream<Path> s = Files.list(dir.resolve(sub))) {
      return new TreeSet<>(s.map(p -> p.getFileName().toString()).toList());
    }
  }

  @Test
  void aVersionLancelotRestoresReadsInLanceAsTheOldVersionWithItsIndex(@TempDir Path dir) {
    history(dir); // 1 create (200 rows), 2 append (100), 3 delete
    LanceOracle.createBTree(allocator, dir, "id"); // 4: Lance's index
    List<List<Object>> v4 = lanceAt(dir, 4, null);
    List<List<Object>> v4Filtered = lanceAt(dir, 4, "id < 50");
    assertThat(v4).hasSize(257);
    write(dir.toString(), 1000, 40, WriteMode.APPEND); // 5
    try (Dataset ds = Dataset.open(dir.toString())) {
      ds.delete("id < 100").close(); // 6
    }
    long maxFragmentIdBefore;
    try (Dataset ds = Dataset.open(dir.toString())) {
      maxFragmentIdBefore = ds.fragments().stream().mapToLong(FragmentInfo::id).max().orElseThrow();
      try (Dataset restored = ds.restore(4)) {
        assertThat(restored.version()).isEqualTo(7);
        assertThat(ours(restored, null)).isEqualTo(ours(ds.checkout(4), null));
        assertThat(restored.indexes().names()).containsExactly("id_idx");
      }
      assertThat(ds.versions().get(6).operation()).isEqualTo("restore");
    }
    try (org.lance.Dataset lance = lanceOpen(dir)) {
      assertThat(lance.version()).isEqualTo(7);
      assertThat(lanceRows(lance, null)).isEqualTo(v4);
      assertThat(lanceRows(lance, "id < 50")).isEqualTo(v4Filtered).isNotEmpty();
      assertThat(lance.listIndexes()).containsExactly("id_idx");
      assertThat(lance.listVersions()).hasSize(7);
      org.lance.Transaction txn = lance.readTransaction().orElseThrow();
      assertThat(txn.operation()).isInstanceOf(Restore.class);
      assertThat(((Restore) txn.operation()).version()).isEqualTo(4);
      assertThat(txn.readVersion()).isEqualTo(6);
    }
    // Lance appends on top of the restored version; its new fragment reuses no id used before
    TagsAndBranchesOracleTest.lanceAppend(dir.toString(), 2000, 30);
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThat(ds.version()).isEqualTo(8);
      assertThat(ds.fragments().get(ds.fragments().size() - 1).id())
          .isGreaterThan(maxFragmentIdBefore);
      assertThat(ds.countRows()).isEqualTo(287);
      assertThat(ours(ds, null)).isEqualTo(lanceRows(dir, Ref.ofMain()));
    }
  }

  @Test
  void aVersionLanceRestoresReadsInLancelotAsTheOldVersion(@TempDir Path dir) {
    history(dir);
    List<List<Object>> v2 = ours(dir, OpenOptions.defaults().withVersion(2));
    try (org.lance.Dataset lance = lanceOpen(dir);
        org.lance.Dataset old = lance.checkoutVersion(2)) {
      old.restore();
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThat(ds.version()).isEqualTo(4);
      assertThat(ours(ds, null)).isEqualTo(v2).hasSize(300);
      assertThat(ds.versions().get(3).operation()).isEqualTo("restore");
      // and lancelot writes on top of it
      write(dir.toString(), 500, 10, WriteMode.APPEND);
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThat(ours(ds, null)).isEqualTo(lanceRows(dir, Ref.ofMain())).hasSize(310);
    }
  }

  @Test
  void restoresTheLatestVersionAtOrBeforeATimestamp(@TempDir Path dir) throws Exception {
    history(dir);
    List<VersionInfo> versions;
    try (Dataset ds = Dataset.open(dir.toString())) {
      versions = ds.versions();
    }
    Instant t2 = versions.get(1).timestamp();
    Instant t3 = versions.get(2).timestamp();
    assertThat(t3).isAfter(t2);
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThat(ds.versionAt(t2)).isEqualTo(2);
      assertThat(ds.versionAt(t3.minusNanos(1))).isEqualTo(2);
      assertThat(ds.versionAt(t3)).isEqualTo(3);
    }
    try (Dataset ds = Dataset.open(dir.toString());
        Dataset restored = ds.restore(ds.versionAt(t2))) {
      assertThat(restored.version()).isEqualTo(4);
      assertThat(ours(restored, null)).hasSize(300);
    }
    try (org.lance.Dataset lance = lanceOpen(dir)) {
      assertThat(((Restore) lance.readTransaction().orElseThrow().operation()).version())
          .isEqualTo(2);
    }
    // a time between two versions restores the earlier one; now restores the latest (4, = v2)
    try (Dataset ds = Dataset.open(dir.toString());
        Dataset restored = ds.restore(ds.versionAt(t3.minusNanos(1)))) {
      assertThat(restored.versions().get(4).operation()).isEqualTo("restore");
      assertThat(ours(restored, null)).isEqualTo(ours(ds.checkout(2), null));
    }
    try (Dataset ds = Dataset.open(dir.toString());
        Dataset restored = ds.restore(ds.versionAt(Instant.now()))) {
      assertThat(restored.version()).isEqualTo(6);
      assertThat(ours(restored, null)).hasSize(300);
    }
  }

  @Test
  void badInputIsRefusedAndChangesNothing(@TempDir Path dir) throws IOException {
    history(dir);
    try (org.lance.Dataset lance = lanceOpen(dir)) {
      lance.createBranch("dev", Ref.ofMain(2)).close();
    }
    TreeSet<String> versions = files(dir, "_versions");
    TreeSet<String> transactions = files(dir, "_transactions");
    TreeSet<String> devVersions = files(dir, "tree/dev/_versions");
    assertThat(devVersions).isNotEmpty();
    Instant first;
    try (Dataset ds = Dataset.open(dir.toString())) {
      first = ds.versions().get(0).timestamp();
      assertThatThrownBy(() -> ds.restore(99))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("Cannot restore version 99 of " + ds.location())
          .hasMessageContaining("no such version. Available versions: 1 to 3.");
      assertThatThrownBy(() -> ds.restore(0))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("Cannot restore version 0")
          .hasMessageContaining("Available versions: 1 to 3");
      assertThatThrownBy(() -> ds.versionAt(first.minusMillis(1)))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("Cannot find the version of " + ds.location() + " as of ")
          .hasMessageContaining("no version was committed at or before that time")
          .hasMessageContaining("the oldest kept version, 1, was committed at " + first);
      assertThatThrownBy(() -> ds.versionAt(Instant.now().plus(Duration.ofHours(1))))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("that time is in the future");
    }
    try (Dataset dev = Dataset.open(dir.toString(), OpenOptions.defaults().withBranch("dev"))) {
      // a branch's versions start at the version it was created from
      assertThatThrownBy(() -> dev.restore(1))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("Cannot restore version 1")
          .hasMessageContaining("Available versions: 2");
    }
    assertThat(files(dir, "_versions")).isEqualTo(versions);
    assertThat(files(dir, "_transactions")).isEqualTo(transactions);
    assertThat(files(dir, "tree/dev/_versions")).isEqualTo(devVersions);
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThat(ds.version()).isEqualTo(3);
    }
  }

  @Test
  void aRestoreRebasesOverAConcurrentWriteAndLaterWritesOfOlderReadsFail(@TempDir Path dir) {
    history(dir);
    try (Dataset stale = Dataset.open(dir.toString())) { // read version 3
      write(dir.toString(), 700, 10, WriteMode.APPEND); // 4, concurrently
      Snapshot old = stale.checkout(1).snapshot();
      Snapshot committed =
          stale
              .committer()
              .commit(stale.snapshot(), new Operation.Restore(1, old.manifest(), old.indices()));
      assertThat(committed.version()).isEqualTo(5);
      // an operation planned on version 3 cannot apply after the restore
      assertThatThrownBy(() -> stale.delete("id = 1"))
          .isInstanceOf(CommitConflictException.class)
          .hasMessageContaining("a concurrent restore was committed as version 5");
    }
    assertThat(lanceRows(dir, Ref.ofMain())).hasSize(200);
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThat(ours(ds, null)).isEqualTo(lanceRows(dir, Ref.ofMain()));
    }
  }

  @Test
  void theOldSchemaAndConfigComeBackAsLanceReadsThem(@TempDir Path dir) {
    history(dir); // 1..3
    try (Dataset ds = Dataset.open(dir.toString())) {
      ds.updateConfig(java.util.Map.of("team", java.util.Optional.of("search"))).close(); // 4
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      ds.dropColumns(List.of("name")).close(); // 5
    }
    List<List<Object>> v4 = lanceAt(dir, 4, null);
    try (Dataset ds = Dataset.open(dir.toString())) {
      ds.updateConfig(java.util.Map.of("team", java.util.Optional.empty())).close(); // 6
    }
    try (Dataset ds = Dataset.open(dir.toString());
        Dataset restored = ds.restore(4)) {
      assertThat(restored.schema().findField("name")).isNotNull();
      assertThat(restored.config()).containsEntry("team", "search");
    }
    try (org.lance.Dataset lance = lanceOpen(dir)) {
      assertThat(lance.version()).isEqualTo(7);
      assertThat(lance.getSchema().getFields())
          .extracting(org.apache.arrow.vector.types.pojo.Field::getName)
          .contains("name");
      assertThat(lance.getConfig()).containsEntry("team", "search");
      assertThat(lanceRows(lance, null)).isEqualTo(v4);
    }
  }

  @Test
  void aDatasetWithStableRowIdsKeepsTheRestoredIdsAndNeverReusesOne(@TempDir Path dir)
      throws Exception {
    try (org.apache.arrow.vector.VectorSchemaRoot batch =
            dev.lancelot.engine.testing.ClusteredData.generate(allocator, 0, 50, 8, 4, 9);
        org.apache.arrow.vector.ipc.ArrowReader reader =
            dev.lancelot.engine.testing.ArrowStreams.readerOf(allocator, List.of(batch))) {
      Dataset.write(
              dir.toString(), reader, WriteOptions.of(WriteMode.CREATE).enableStableRowIds(true))
          .close();
    }
    write(dir.toString(), 50, 10, WriteMode.APPEND); // ids 50..59
    try (Dataset ds = Dataset.open(dir.toString());
        Dataset restored = ds.restore(1)) {
      assertThat(restored.version()).isEqualTo(3);
      assertThat(restored.countRows()).isEqualTo(50);
      assertThat(
              dev.lancelot.engine.internal.DatasetInternals.snapshot(restored)
                  .manifest()
                  .getNextRowId())
          .isEqualTo(60);
    }
    write(dir.toString(), 70, 5, WriteMode.APPEND);
    // Lance reads the restored rows with their ids; rows appended after the restore take ids
    // after every id used before it (60.., not 50..)
    try (org.lance.Dataset lance =
            org.lance.Dataset.open(
                allocator, dir.toString(), new org.lance.ReadOptions.Builder().build());
        org.lance.ipc.LanceScanner scanner =
            lance.newScan(
                new org.lance.ipc.ScanOptions.Builder()
                    .columns(List.of("id"))
                    .withRowId(true)
                    .build());
        org.apache.arrow.vector.ipc.ArrowReader reader = scanner.scanBatches()) {
      List<List<Object>> rows = new java.util.ArrayList<>();
      while (reader.loadNextBatch()) {
        rows.addAll(dev.lancelot.engine.testing.Rows.of(reader.getVectorSchemaRoot()));
      }
      List<List<Object>> expected = new java.util.ArrayList<>();
      for (long i = 0; i < 50; i++) {
        expected.add(List.of(i, i));
      }
      for (long i = 0; i < 5; i++) {
        expected.add(List.of(70 + i, 60 + i));
      }
      assertThat(rows).isEqualTo(expected);
    }
  }
}
