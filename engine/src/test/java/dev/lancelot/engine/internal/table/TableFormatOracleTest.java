package dev.lancelot.engine.internal.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.internal.format.CorruptFileException;
import dev.lancelot.engine.internal.format.DeletionFiles;
import dev.lancelot.engine.internal.format.FeatureFlags;
import dev.lancelot.engine.internal.format.ManifestFile;
import dev.lancelot.engine.internal.format.ManifestNaming;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.testing.LanceOracle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.WriteParams;
import org.roaringbitmap.RoaringBitmap;

/**
 * The table format (F1, F3, F5, F6) against lance-core 7.0.0: manifests, naming, deletion files and
 * commits, independent of the data-file codec (data files here are written by Lance).
 */
@Tag("oracle")
class TableFormatOracleTest {
  static BufferAllocator allocator;
  static HadoopFileIO io = HadoopFileIO.local();

  @BeforeAll
  static void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  static void tearDown() {
    allocator.close();
  }

  private static Snapshot latest(Path dir) {
    DatasetPaths paths = DatasetPaths.of(dir.toString());
    VersionLog.Entry e = VersionLog.latest(io, paths).orElseThrow();
    return new Snapshot(paths, e, ManifestFile.read(io.newInputFile(e.location())));
  }

  @Test
  void readsLanceManifestsAndRoundTripsThemByteForByte(@TempDir Path dir) throws Exception {
    LanceOracle.write(allocator, dir, 0, 300, 8, 1, WriteParams.WriteMode.CREATE, 200);
    LanceOracle.write(allocator, dir, 300, 100, 8, 1, WriteParams.WriteMode.APPEND, 200);
    DatasetPaths paths = DatasetPaths.of(dir.toString());
    List<VersionLog.Entry> versions = VersionLog.list(io, paths);
    assertThat(versions).extracting(VersionLog.Entry::version).containsExactly(1L, 2L);
    assertThat(versions).allMatch(v -> v.naming() == ManifestNaming.V2);
    assertThat(versions.get(0).location()).endsWith("/_versions/18446744073709551614.manifest");

    Snapshot s = latest(dir);
    assertThat(s.version()).isEqualTo(2);
    assertThat(s.fragments()).extracting(DataFragment::getId).containsExactly(0L, 1L, 2L);
    assertThat(s.fragments())
        .extracting(DataFragment::getPhysicalRows)
        .containsExactly(200L, 100L, 100L);
    assertThat(s.manifest().getFieldsList())
        .extracting(f -> f.getName() + ":" + f.getLogicalType())
        .containsExactly(
            "id:int64", "tenant_id:int32", "name:string", "vector:fixed_size_list:float:8");
    assertThat(s.manifest().getDataFormat().getVersion()).isEqualTo("2.1");
    assertThat(s.file().transaction()).isPresent();
    assertThat(s.file().transaction().get().hasAppend()).isTrue();
    assertThat(s.countRows()).isEqualTo(400);

    byte[] rewritten = ManifestFile.write(s.manifest(), s.indices(), s.file().transaction().get());
    Path copy = dir.resolve("copy.manifest");
    write(copy, rewritten);
    ManifestFile again = ManifestFile.read(io.newInputFile(copy.toUri().toString()));
    assertThat(again.manifest()).isEqualTo(s.manifest());
    assertThat(again.transaction()).isEqualTo(s.file().transaction());
  }

  @Test
  void lanceOpensVersionsWeCommitAndAppendsAfterThem(@TempDir Path dir) throws Exception {
    LanceOracle.write(allocator, dir, 0, 300, 8, 2, WriteParams.WriteMode.CREATE, 200);
    Snapshot base = latest(dir);
    DataFragment reused = copyDataFile(dir, base.fragments().get(1));

    Committer committer = new Committer(io, base.paths(), ManifestNaming.V2);
    Snapshot v2 = committer.commit(base, new Operation.Append(List.of(reused)));
    assertThat(v2.version()).isEqualTo(2);
    assertThat(v2.fragments()).extracting(DataFragment::getId).containsExactly(0L, 1L, 2L);
    assertThat(Files.readString(dir.resolve("_versions/latest_version_hint.json")))
        .isEqualTo("{\"version\":2}");
    assertThat(Files.list(dir.resolve("_transactions")).count()).isEqualTo(2);

    // F3: Lance reads our version, then appends on top of it.
    assertThat(LanceOracle.countRows(allocator, dir)).isEqualTo(400);
    assertThat(LanceOracle.longColumn(allocator, dir, "id", null))
        .containsExactlyElementsOf(concat(LongStream.range(0, 300), LongStream.range(200, 300)));
    LanceOracle.write(allocator, dir, 1000, 50, 8, 2, WriteParams.WriteMode.APPEND, 200);
    Snapshot v3 = latest(dir);
    assertThat(v3.version()).isEqualTo(3);
    assertThat(v3.fragments()).extracting(DataFragment::getId).containsExactly(0L, 1L, 2L, 3L);
  }

  @Test
  void deletionFilesOfBothKindsAreReadByLanceAndWeReadLances(@TempDir Path dir) throws Exception {
    LanceOracle.write(allocator, dir, 0, 12000, 4, 3, WriteParams.WriteMode.CREATE, 6000);
    Snapshot base = latest(dir);
    DatasetPaths paths = base.paths();
    // Small deletion in fragment 0 (Arrow IPC), large one in fragment 1 (Roaring bitmap).
    RoaringBitmap small = RoaringBitmap.bitmapOf(0, 5, 77, 5999);
    RoaringBitmap large = new RoaringBitmap();
    large.add(0L, 5500L);
    var d0 = DeletionFiles.write(io, paths.root(), 0, base.version(), small);
    var d1 = DeletionFiles.write(io, paths.root(), 1, base.version(), large);
    assertThat(d0.getFileType().getNumber()).isEqualTo(0);
    assertThat(d1.getFileType().getNumber()).isEqualTo(1);
    List<DataFragment> updated =
        List.of(
            base.fragments().get(0).toBuilder().setDeletionFile(d0).build(),
            base.fragments().get(1).toBuilder().setDeletionFile(d1).build());
    Snapshot v2 =
        new Committer(io, paths, ManifestNaming.V2)
            .commit(base, new Operation.Delete(updated, List.of(), "custom"));
    assertThat(v2.manifest().getReaderFeatureFlags() & FeatureFlags.DELETION_FILES).isNotZero();
    assertThat(v2.countRows()).isEqualTo(12000 - 4 - 5500);

    assertThat(LanceOracle.countRows(allocator, dir)).isEqualTo(12000 - 4 - 5500);
    List<Long> ids = LanceOracle.longColumn(allocator, dir, "id", null);
    assertThat(ids).doesNotContain(0L, 5L, 77L, 5999L, 6000L, 11499L).contains(1L, 11500L);

    // Lance deletes more; we read both kinds of files Lance writes.
    try (var ds = LanceOracle.open(allocator, dir)) {
      ds.delete("id >= 100 AND id < 110");
      ds.delete("id >= 6000 AND id < 12000 AND id % 2 = 0");
    }
    Snapshot v4 = latest(dir);
    DataFragment f0 = v4.fragment(0).orElseThrow();
    DataFragment f1 = v4.fragment(1).orElseThrow();
    RoaringBitmap r0 = DeletionFiles.read(io, paths.root(), 0, f0.getDeletionFile());
    RoaringBitmap r1 = DeletionFiles.read(io, paths.root(), 1, f1.getDeletionFile());
    assertThat(f0.getDeletionFile().getFileType().getNumber()).isEqualTo(0);
    assertThat(r0.getCardinality()).isEqualTo(14);
    assertThat(r0.contains(5)).isTrue();
    assertThat(r0.contains(105)).isTrue();
    assertThat(f1.getDeletionFile().getFileType().getNumber()).isEqualTo(1);
    assertThat(r1.getLongCardinality()).isEqualTo(5500 + 250);
  }

  @Test
  void truncatedAndBadMagicManifestsAreRefusedNamingTheFile(@TempDir Path dir) throws Exception {
    LanceOracle.write(allocator, dir, 0, 10, 4, 4, WriteParams.WriteMode.CREATE, 200);
    Path manifest =
        Files.list(dir.resolve("_versions"))
            .filter(p -> p.toString().endsWith(".manifest"))
            .findFirst()
            .orElseThrow();
    byte[] good = Files.readAllBytes(manifest);

    Path truncated = dir.resolve("truncated.manifest");
    write(truncated, java.util.Arrays.copyOf(good, good.length - 7));
    assertThatThrownBy(() -> ManifestFile.read(io.newInputFile(truncated.toUri().toString())))
        .isInstanceOf(CorruptFileException.class)
        .hasMessageContaining("truncated.manifest")
        .hasMessageContaining("magic");

    byte[] bad = good.clone();
    bad[bad.length - 20] ^= 0x5A; // inside the manifest protobuf
    bad[bad.length - 16] = (byte) 0xFF; // manifest offset
    Path corrupt = dir.resolve("corrupt.manifest");
    write(corrupt, bad);
    assertThatThrownBy(() -> ManifestFile.read(io.newInputFile(corrupt.toUri().toString())))
        .isInstanceOf(CorruptFileException.class)
        .hasMessageContaining("corrupt.manifest");

    Path tiny = dir.resolve("tiny.manifest");
    write(tiny, new byte[] {1, 2, 3});
    assertThatThrownBy(() -> ManifestFile.read(io.newInputFile(tiny.toUri().toString())))
        .isInstanceOf(CorruptFileException.class)
        .hasMessageContaining("smaller than its footer");
  }

  @Test
  void unknownReaderFlagsAreRefused() {
    // Every flag Lance defines (bits 1 to 2048) is either implemented or refused by its name;
    // higher bits are refused as unknown.
    Map<Long, String> refused =
        Map.of(
            FeatureFlags.DATA_OVERLAY_FILES,
            "data overlay files",
            FeatureFlags.COVERED_INDEX_METADATA,
            "covering index fields",
            FeatureFlags.FRAG_REUSE_WITH_STABLE_ROW_IDS,
            "fragment reuse index with stable row ids",
            FeatureFlags.FRAGMENT_REUSE_INDEX,
            "fragment reuse index",
            FeatureFlags.SEMANTIC_TYPES,
            "semantic types",
            4096L,
            "unknown",
            1L << 63,
            "unknown");
    refused.forEach(
        (flag, name) -> {
          String named = Long.toUnsignedString(flag) + " (" + name + ")";
          assertThatThrownBy(() -> FeatureFlags.checkReadable("file:/x", flag, flag))
              .isInstanceOf(LancelotException.class)
              .hasMessageContaining("file:/x")
              .hasMessageContaining("reader feature flags " + named);
          assertThatThrownBy(() -> FeatureFlags.checkWritable("file:/x", flag, flag))
              .isInstanceOf(LancelotException.class)
              .hasMessageContaining("writer feature flags " + named);
        });
    long implemented =
        FeatureFlags.DELETION_FILES
            | FeatureFlags.USE_V2_FORMAT_DEPRECATED
            | FeatureFlags.TABLE_CONFIG
            | FeatureFlags.BASE_PATHS
            | FeatureFlags.DISABLE_TRANSACTION_FILE
            | FeatureFlags.MIXED_DATA_FILE_VERSIONS;
    FeatureFlags.checkReadable("file:/x", implemented, implemented);
    FeatureFlags.checkWritable("file:/x", implemented, implemented);
    // stable row ids are read; written only by the operations that keep them (appends, deletes)
    FeatureFlags.checkReadable("file:/x", FeatureFlags.STABLE_ROW_IDS, FeatureFlags.STABLE_ROW_IDS);
    assertThatThrownBy(
            () ->
                FeatureFlags.checkWritable(
                    "file:/x", FeatureFlags.STABLE_ROW_IDS, FeatureFlags.STABLE_ROW_IDS))
        .isInstanceOf(LancelotException.class)
        .hasMessageContaining("writer feature flag 2 (stable row ids)");
    FeatureFlags.checkWritable(
        "file:/x", FeatureFlags.STABLE_ROW_IDS, FeatureFlags.STABLE_ROW_IDS, "append");
    assertThatThrownBy(
            () -> FeatureFlags.checkWritable("file:/x", FeatureFlags.STABLE_ROW_IDS, 0, "rewrite"))
        .isInstanceOf(LancelotException.class)
        .hasMessageContaining("Cannot rewrite dataset file:/x")
        .hasMessageContaining("writer feature flag 2 (stable row ids)");
    assertThatThrownBy(
            () ->
                FeatureFlags.checkWritable(
                    "file:/x",
                    FeatureFlags.STABLE_ROW_IDS | FeatureFlags.DATA_OVERLAY_FILES,
                    FeatureFlags.STABLE_ROW_IDS,
                    "append"))
        .isInstanceOf(LancelotException.class)
        .hasMessageContaining("writer feature flags 64 (data overlay files)");
    for (int bit = 0; bit < 12; bit++) {
      long flag = 1L << bit;
      assertThat(FeatureFlags.name(flag)).as("flag %d", flag).isNotEqualTo("unknown");
      if (flag == FeatureFlags.STABLE_ROW_IDS) {
        continue; // read, refused for writes: checked above
      }
      assertThat(((implemented & flag) != 0) != refused.containsKey(flag))
          .as("flag %d is implemented or refused by name, not both", flag)
          .isTrue();
    }
    // Mixed file versions (and semantic types) are set for readers and writers together.
    assertThatThrownBy(
            () -> FeatureFlags.checkReadable("file:/x", FeatureFlags.MIXED_DATA_FILE_VERSIONS, 0))
        .isInstanceOf(LancelotException.class)
        .hasMessageContaining("256 (mixed data file versions) for readers but not writers");
    assertThatThrownBy(() -> FeatureFlags.checkWritable("file:/x", 0, FeatureFlags.SEMANTIC_TYPES))
        .isInstanceOf(LancelotException.class)
        .hasMessageContaining("2048 (semantic types) for writers but not readers");
  }

  @Test
  void dataFilePathsEscapingTheRootAreRefused() {
    DatasetPaths paths = DatasetPaths.of("/tmp/ds");
    assertThat(paths.dataFile("abc.lance")).isEqualTo("file:/tmp/ds/data/abc.lance");
    for (String evil :
        List.of(
            "../x.lance",
            "a/../../x.lance",
            "/etc/passwd",
            "file:/etc/passwd",
            "s3a://bucket/x.lance",
            "a\\..\\x")) {
      assertThatThrownBy(() -> paths.dataFile(evil))
          .isInstanceOf(LancelotException.class)
          .hasMessageContaining("escapes the dataset root")
          .hasMessageContaining(evil);
    }
  }

  @Test
  void manifestNamingSchemes() {
    assertThat(ManifestNaming.V2.fileName(1)).isEqualTo("18446744073709551614.manifest");
    assertThat(ManifestNaming.V1.fileName(12)).isEqualTo("12.manifest");
    assertThat(ManifestNaming.parse("18446744073709551614.manifest").orElseThrow())
        .isEqualTo(new ManifestNaming.Parsed(1, ManifestNaming.V2));
    assertThat(ManifestNaming.parse("7.manifest").orElseThrow())
        .isEqualTo(new ManifestNaming.Parsed(7, ManifestNaming.V1));
    assertThat(ManifestNaming.parse("latest_version_hint.json")).isEmpty();
    assertThat(ManifestNaming.parse(".18446744073709551614.manifest.x.tmp")).isEmpty();
    assertThat(ManifestNaming.parse("d123.manifest")).isEmpty();
  }

  @Test
  void readsV1NamedManifests(@TempDir Path dir) throws Exception {
    LanceOracle.write(allocator, dir, 0, 10, 4, 4, WriteParams.WriteMode.CREATE, 200);
    Path v2name = dir.resolve("_versions/18446744073709551614.manifest");
    Files.move(v2name, dir.resolve("_versions/1.manifest"));
    Snapshot s = latest(dir);
    assertThat(s.version()).isEqualTo(1);
    assertThat(s.entry().naming()).isEqualTo(ManifestNaming.V1);
    write(
        dir.resolve("_versions/18446744073709551613.manifest"),
        Files.readAllBytes(dir.resolve("_versions/1.manifest")));
    assertThatThrownBy(() -> latest(dir))
        .isInstanceOf(LancelotException.class)
        .hasMessageContaining("mixes both");
  }

  static DataFragment copyDataFile(Path dir, DataFragment fragment) throws Exception {
    String path = fragment.getFiles(0).getPath();
    String copyName = "copy-" + java.util.UUID.randomUUID() + ".lance";
    Files.copy(dir.resolve("data").resolve(path), dir.resolve("data").resolve(copyName));
    return fragment.toBuilder()
        .clearId()
        .setFiles(0, fragment.getFiles(0).toBuilder().setPath(copyName))
        .build();
  }

  static void write(Path p, byte[] bytes) throws Exception {
    Files.write(p, bytes);
  }

  static List<Long> concat(LongStream a, LongStream b) {
    return LongStream.concat(a, b).boxed().toList();
  }
}
