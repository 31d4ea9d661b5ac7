package dev.lancelot.engine.dataset;

import static dev.lancelot.engine.dataset.StableRowIdsMaintenanceOracleTest.INLINE_ONLY;
import static dev.lancelot.engine.dataset.StableRowIdsMaintenanceOracleTest.lanceRows;
import static dev.lancelot.engine.dataset.StableRowIdsMaintenanceOracleTest.ourRows;
import static dev.lancelot.engine.dataset.StableRowIdsMaintenanceOracleTest.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.CompactionOptions;
import dev.lancelot.engine.CompactionResult;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.format.ManifestFile;
import dev.lancelot.engine.internal.format.RowVersions;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.format.proto.TableProtos.ExternalFile;
import dev.lancelot.engine.internal.format.proto.TableProtos.Manifest;
import dev.lancelot.engine.internal.table.Snapshot;
import dev.lancelot.engine.testing.LanceOracle;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.WriteParams;

/**
 * Row version sequences kept in external files (fragment fields {@code
 * external_created_at_versions} and {@code external_last_updated_at_versions}, an {@code
 * ExternalFile}: a byte range of a file under the dataset root). lance-core 7.0.0 writes them
 * inline only, so the fixture is a dataset lance-core writes with stable row ids whose sequences
 * are then moved, byte for byte, into one file as {@code table.proto} describes; the expected
 * versions are those lance-core wrote, checked by hand against the history (rows of the create at
 * version 1, appended rows at version 2).
 */
@Tag("oracle")
class ExternalRowVersionsTest {
  static final String FILE = "_rowversions/sequences.bin";

  @BeforeAll
  static void setUp() {
    StableRowIdsMaintenanceOracleTest.setUp();
  }

  @AfterAll
  static void tearDown() {
    StableRowIdsMaintenanceOracleTest.tearDown();
  }

  /**
   * 1,500 rows (fragments of 500) at version 1, 500 appended at version 2, rows with id % 7 = 3
   * deleted at 3, all by lance-core; then fragments 0 and 3 get their sequences from {@code path}
   * (with {@code sizeDelta} added to each size, to damage them).
   */
  static void fixture(Path dir, String path, long sizeDelta) throws IOException {
    write(dir, 0, 1500, WriteParams.WriteMode.CREATE);
    write(dir, 1500, 500, WriteParams.WriteMode.APPEND);
    try (org.lance.Dataset lance =
        LanceOracle.open(StableRowIdsMaintenanceOracleTest.allocator, dir)) {
      lance.delete("id % 7 = 3");
    }
    Path versions = dir.resolve("_versions");
    Path manifestPath;
    try (var s = Files.list(versions)) {
      manifestPath =
          s.filter(p -> p.getFileName().toString().endsWith(".manifest"))
              .min(java.util.Comparator.comparing(p -> p.getFileName().toString()))
              .orElseThrow(); // the latest (names count down)
    }
    ManifestFile mf;
    var io =
        new dev.lancelot.engine.io.HadoopFileIO(dev.lancelot.engine.io.HadoopFileIO.defaultConf());
    try (var in = io.newInputFile(manifestPath.toString())) {
      mf = ManifestFile.read(in);
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    bytes.write(
        "lancelot row version fixture".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    Manifest.Builder m = mf.manifest().toBuilder();
    for (int i = 0; i < m.getFragmentsCount(); i++) {
      DataFragment f = m.getFragments(i);
      if (f.getId() != 0 && f.getId() != 3) {
        continue;
      }
      byte[] created = f.getInlineCreatedAtVersions().toByteArray();
      byte[] updated = f.getInlineLastUpdatedAtVersions().toByteArray();
      assertThat(created).isNotEmpty();
      ExternalFile c =
          ExternalFile.newBuilder()
              .setPath(path)
              .setOffset(bytes.size())
              .setSize(created.length + sizeDelta)
              .build();
      bytes.write(created);
      ExternalFile u =
          ExternalFile.newBuilder()
              .setPath(path)
              .setOffset(bytes.size())
              .setSize(updated.length + sizeDelta)
              .build();
      bytes.write(updated);
      m.setFragments(
          i,
          f.toBuilder()
              .setExternalCreatedAtVersions(c)
              .setExternalLastUpdatedAtVersions(u)
              .build());
    }
    Files.createDirectories(dir.resolve(FILE).getParent());
    Files.write(dir.resolve(FILE), bytes.toByteArray());
    Files.write(
        manifestPath, ManifestFile.write(m.build(), mf.indices(), mf.transaction().orElse(null)));
  }

  /** The created (= last updated) version of each live row, in id order: by hand, from history. */
  static long[] expectedVersions() {
    List<Long> out = new ArrayList<>();
    for (long id = 0; id < 2000; id++) {
      if (id % 7 != 3) {
        out.add(id < 1500 ? 1L : 2L);
      }
    }
    return out.stream().mapToLong(Long::longValue).toArray();
  }

  @Test
  void compactionCarriesVersionsReadFromTheExternalFile(@TempDir Path dir) throws Exception {
    fixture(dir, FILE, 0);
    List<List<Object>> before = ourRows(dir);
    try (Dataset ds = Dataset.open(dir.toString())) {
      Snapshot s = DatasetInternals.snapshot(ds);
      DataFragment f0 = s.fragment(0).orElseThrow();
      DataFragment f3 = s.fragment(3).orElseThrow();
      assertThat(f0.hasExternalCreatedAtVersions()).isTrue();
      long[] ones = new long[500];
      Arrays.fill(ones, 1);
      long[] twos = new long[500];
      Arrays.fill(twos, 2);
      var rowIds = DatasetInternals.rowIds(ds);
      for (RowVersions.Kind k : RowVersions.Kind.values()) {
        assertThat(RowVersions.of(f0, k, "f0", x -> rowIds.readExternal(x, "row version")))
            .isEqualTo(ones);
        assertThat(RowVersions.of(f3, k, "f3", x -> rowIds.readExternal(x, "row version")))
            .isEqualTo(twos);
      }
      CompactionResult r =
          ds.compact(CompactionOptions.defaults().withMaterializeDeletionsThreshold(0.01));
      assertThat(r.fragmentsRemoved()).isEqualTo(4);
      r.dataset().close();
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      List<DataFragment> fragments = DatasetInternals.snapshot(ds).fragments();
      List<Long> created = new ArrayList<>();
      List<Long> updated = new ArrayList<>();
      for (DataFragment f : fragments) {
        assertThat(f.hasExternalCreatedAtVersions()).isFalse();
        for (long v : RowVersions.of(f, RowVersions.Kind.CREATED, "c", INLINE_ONLY)) {
          created.add(v);
        }
        for (long v : RowVersions.of(f, RowVersions.Kind.LAST_UPDATED, "c", INLINE_ONLY)) {
          updated.add(v);
        }
      }
      long[] expected = expectedVersions();
      assertThat(created.stream().mapToLong(Long::longValue).toArray()).isEqualTo(expected);
      assertThat(updated.stream().mapToLong(Long::longValue).toArray()).isEqualTo(expected);
    }
    // the rows and their ids are kept, and lance-core reads the compacted version as we do
    assertThat(ourRows(dir)).isEqualTo(before);
    assertThat(lanceRows(dir, null)).isEqualTo(before);
  }

  @Test
  void badExternalSequencesAreRefused(@TempDir Path dir) throws Exception {
    Path escaping = dir.resolve("escaping");
    fixture(escaping, "../outside.bin", 0);
    try (Dataset ds = Dataset.open(escaping.toString())) {
      assertThatThrownBy(() -> ds.compact(CompactionOptions.defaults()))
          .hasMessageContaining("../outside.bin");
    }
    Path damaged = dir.resolve("damaged");
    fixture(damaged, FILE, -1); // each range one byte short
    try (Dataset ds = Dataset.open(damaged.toString())) {
      assertThatThrownBy(() -> ds.compact(CompactionOptions.defaults()))
          .hasMessageContaining("row version sequence");
    }
  }
}
