package dev.lancelot.engine.dataset;

import static dev.lancelot.engine.dataset.BlobOracleTest.SIZES;
import static dev.lancelot.engine.dataset.BlobOracleTest.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Blob;
import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.CompactionOptions;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.schema.LanceField;
import dev.lancelot.engine.schema.LanceSchema;
import dev.lancelot.engine.schema.SchemaException;
import dev.lancelot.engine.testing.ArrowStreams;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Blob columns written by lancelot: legacy blobs in 2.1 files, blob v2 (inline, packed and
 * dedicated blob files) in 2.2, read back byte for byte by lance-core ({@code takeBlobs}, its
 * {@code BlobFile}) and by lancelot, with nulls and empty values; appends to lance-core's blob
 * datasets and compaction keep every blob.
 */
@Tag("oracle")
public class BlobWriteOracleTest {
  @TempDir Path dir;
  static BufferAllocator allocator;

  @BeforeAll
  static void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  static void tearDown() {
    allocator.close();
  }

  static Schema schema() {
    return new Schema(
        List.of(
            Field.nullable("id", new ArrowType.Int(64, true)),
            new Field(
                "b",
                new FieldType(
                    true,
                    ArrowType.LargeBinary.INSTANCE,
                    null,
                    Map.of(LanceField.BLOB_KEY, "true")),
                List.of())));
  }

  /** Rows {@code [from, to)}: id {@code i + idBase}, blob {@link BlobOracleTest#value}(i). */
  static VectorSchemaRoot rows(Schema schema, int from, int to, long idBase) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    root.allocateNew();
    BigIntVector id = (BigIntVector) root.getVector("id");
    LargeVarBinaryVector b = (LargeVarBinaryVector) root.getVector("b");
    for (int i = from; i < to; i++) {
      id.setSafe(i - from, i + idBase);
      if (SIZES[i] < 0) {
        b.setNull(i - from);
      } else {
        b.setSafe(i - from, value(i));
      }
    }
    root.setRowCount(to - from);
    return root;
  }

  static Dataset write(Path uri, Schema schema, int from, int to, long idBase, WriteOptions o)
      throws Exception {
    try (VectorSchemaRoot root = rows(schema, from, to, idBase);
        ArrowReader source = ArrowStreams.readerOf(allocator, List.of(root))) {
      return Dataset.write(uri.toString(), source, o);
    }
  }

  /** lance-core's blob of row {@code address}: its bytes, or null when it returns none. */
  public static byte[] lanceBlob(org.lance.Dataset ds, long address) throws Exception {
    List<org.lance.BlobFile> got = ds.takeBlobs(List.of(address), "b");
    if (got.isEmpty()) {
      return null;
    }
    try (org.lance.BlobFile f = got.get(0)) {
      return f.size() == 0 ? new byte[0] : f.readRange(0, (int) f.size());
    }
  }

  /** Every row's blob by lance-core, keyed by id, row addresses from lance-core's own scan. */
  public static Map<Long, byte[]> lanceBlobsById(String uri, BufferAllocator allocator)
      throws Exception {
    Map<Long, byte[]> out = new java.util.TreeMap<>();
    try (org.lance.Dataset lance = org.lance.Dataset.open().allocator(allocator).uri(uri).build()) {
      try (org.lance.ipc.LanceScanner s =
              lance.newScan(
                  new org.lance.ipc.ScanOptions.Builder()
                      .columns(List.of("id"))
                      .withRowAddress(true)
                      .build());
          ArrowReader r = s.scanBatches()) {
        while (r.loadNextBatch()) {
          VectorSchemaRoot root = r.getVectorSchemaRoot();
          BigIntVector id = (BigIntVector) root.getVector("id");
          org.apache.arrow.vector.FieldVector addr = root.getVector("_rowaddr");
          for (int i = 0; i < root.getRowCount(); i++) {
            out.put(id.get(i), lanceBlob(lance, ((Number) addr.getObject(i)).longValue()));
          }
        }
      }
    }
    return out;
  }

  /** Every row's blob by a lancelot scan, keyed by id. */
  public static Map<Long, byte[]> ourBlobsById(String uri) {
    Map<Long, byte[]> out = new java.util.TreeMap<>();
    try (Dataset ds = Dataset.open(uri);
        CloseableIterator<VectorSchemaRoot> it =
            ds.newScan().columns("id", "b").batchSize(5).batches()) {
      while (it.hasNext()) {
        try (VectorSchemaRoot root = it.next()) {
          BigIntVector id = (BigIntVector) root.getVector("id");
          LargeVarBinaryVector b = (LargeVarBinaryVector) root.getVector("b");
          for (int r = 0; r < root.getRowCount(); r++) {
            out.put(id.get(r), b.isNull(r) ? null : b.get(r));
          }
        }
      }
    }
    return out;
  }

  /**
   * Checks blobs keyed by id against {@link BlobOracleTest#value} of row {@code id % 100} (nulls:
   * lance-core may return an empty blob or none).
   */
  public static void assertBlobs(Map<Long, byte[]> got, boolean lance, String what) {
    for (Map.Entry<Long, byte[]> e : got.entrySet()) {
      int row = (int) (e.getKey() % 100);
      byte[] v = e.getValue();
      if (SIZES[row] < 0) {
        if (lance) {
          assertThat(v == null || v.length == 0).as("%s: null id %d", what, e.getKey()).isTrue();
        } else {
          assertThat(v).as("%s: null id %d", what, e.getKey()).isNull();
        }
      } else {
        assertThat(v).as("%s: id %d", what, e.getKey()).isEqualTo(value(row));
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"2.1", "2.2"})
  void lanceReadsBlobsLancelotWrites(String version) throws Exception {
    Path uri = dir.resolve("written-" + version);
    WriteOptions create =
        WriteOptions.of(WriteMode.CREATE).withDataStorageVersion(version).withMaxRowsPerFile(7);
    write(uri, schema(), 0, SIZES.length, 0, create).close();
    try (org.lance.Dataset lance =
        org.lance.Dataset.open().allocator(allocator).uri(uri.toString()).build()) {
      assertThat(lance.countRows()).isEqualTo(SIZES.length);
      Field b = lance.getSchema().findField("b");
      if (version.equals("2.2")) {
        assertThat(b.getType()).isEqualTo(ArrowType.Struct.INSTANCE);
        assertThat(b.getMetadata()).containsEntry("ARROW:extension:name", "lance.blob.v2");
      } else {
        assertThat(b.getType()).isEqualTo(ArrowType.LargeBinary.INSTANCE);
        assertThat(b.getMetadata()).containsEntry("lance-encoding:blob", "true");
      }
      for (int i = 0; i < SIZES.length; i++) {
        byte[] theirs = lanceBlob(lance, BlobOracleTest.address(i));
        if (SIZES[i] < 0) {
          assertThat(theirs == null || theirs.length == 0).as("null row %d", i).isTrue();
        } else {
          assertThat(theirs).as("lance-core, row %d", i).isEqualTo(value(i));
        }
      }
      // a ranged read through lance-core's BlobFile of a dedicated (2.2) blob
      try (org.lance.BlobFile f = lance.takeBlobs(List.of(BlobOracleTest.address(7)), "b").get(0)) {
        assertThat(f.size()).isEqualTo(SIZES[7]);
        assertThat(f.readRange(4_000_000, 100))
            .isEqualTo(Arrays.copyOfRange(value(7), 4_000_000, 4_000_100));
      }
    }
    assertBlobs(ourBlobsById(uri.toString()), false, "lancelot scan");
    // a data file whose first value is empty (row 4): still empty, not null, for lance-core
    Path first = dir.resolve("empty-first-" + version);
    write(first, schema(), 4, 6, 0, create).close();
    Map<Long, byte[]> emptyFirst = lanceBlobsById(first.toString(), allocator);
    assertThat(emptyFirst).containsOnlyKeys(4L, 5L);
    assertThat(emptyFirst.get(4L)).isNotNull().isEmpty();
    assertBlobs(emptyFirst, true, "lance-core, empty first value");
    try (Dataset ds = Dataset.open(uri.toString());
        Blob blob = ds.openBlob("b", BlobOracleTest.address(2)).orElseThrow()) {
      assertThat(blob.read(10, 20)).isEqualTo(Arrays.copyOfRange(value(2), 10, 30));
    }
    List<String> blobFiles;
    try (Stream<Path> s = Files.walk(uri.resolve("data"))) {
      blobFiles = s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".blob")).toList();
    }
    if (version.equals("2.2")) {
      // per data file: fragment 0 packs rows 1 and 5 (id 1), row 2 is dedicated (id 2);
      // fragment 1 has row 7 dedicated (id 1) and row 11 packed (id 2)
      assertThat(blobFiles)
          .containsExactlyInAnyOrder(
              "10000000000000000000000000000000.blob",
              "01000000000000000000000000000000.blob",
              "10000000000000000000000000000000.blob",
              "01000000000000000000000000000000.blob");
    } else {
      assertThat(blobFiles).isEmpty();
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"2.1", "2.2"})
  void appendsAndCompactionKeepBlobs(String version) throws Exception {
    // lance-core's dataset, then a lancelot append of the same rows with ids 100..
    Path uri = BlobOracleTest.write(dir, version, allocator);
    Schema ours;
    try (Dataset ds = Dataset.open(uri.toString())) {
      ours = ds.schema();
    }
    write(uri, ours, 0, SIZES.length, 100, WriteOptions.of(WriteMode.APPEND).withMaxRowsPerFile(5))
        .close();
    Map<Long, byte[]> theirs = lanceBlobsById(uri.toString(), allocator);
    assertThat(theirs).hasSize(2 * SIZES.length);
    assertBlobs(theirs, true, "lance-core after append");
    assertBlobs(ourBlobsById(uri.toString()), false, "lancelot after append");
    // delete a row, then compact everything into one fragment: the blob bytes are rewritten
    try (Dataset ds = Dataset.open(uri.toString());
        Dataset deleted = ds.delete("id = 101")) {
      var result =
          deleted.compact(
              CompactionOptions.defaults()
                  .withTargetRowsPerFragment(1000)
                  .withMaterializeDeletions(true));
      try (Dataset compacted = result.dataset()) {
        assertThat(result.committed()).isTrue();
        assertThat(compacted.fragments()).hasSize(1);
        assertThat(compacted.countRows()).isEqualTo(2L * SIZES.length - 1);
      }
    }
    theirs = lanceBlobsById(uri.toString(), allocator);
    assertThat(theirs).hasSize(2 * SIZES.length - 1).doesNotContainKey(101L);
    assertBlobs(theirs, true, "lance-core after compaction");
    Map<Long, byte[]> mine = ourBlobsById(uri.toString());
    assertThat(mine.keySet()).isEqualTo(theirs.keySet());
    assertBlobs(mine, false, "lancelot after compaction");
  }

  /**
   * Cleanup removes the blob files of the 2.2 data files it removes ({@code data/<stem>/*.blob})
   * and keeps those of every data file a kept version references: lance-core reads every blob of
   * the kept version afterwards.
   */
  @Test
  void cleanupRemovesTheBlobFilesOfTheDataFilesItRemoves() throws Exception {
    Path uri = dir.resolve("cleaned");
    write(
            uri,
            schema(),
            0,
            SIZES.length,
            0,
            WriteOptions.of(WriteMode.CREATE).withDataStorageVersion("2.2").withMaxRowsPerFile(6))
        .close();
    java.util.Set<String> first = blobDirectories(uri);
    assertThat(first).as("packed and dedicated blob files of version 1").isNotEmpty();
    write(
            uri,
            schema(),
            0,
            SIZES.length,
            500,
            WriteOptions.of(WriteMode.OVERWRITE)
                .withDataStorageVersion("2.2")
                .withMaxRowsPerFile(6))
        .close();
    java.util.Set<String> both = blobDirectories(uri);
    assertThat(both).containsAll(first).hasSizeGreaterThan(first.size());
    dev.lancelot.engine.CleanupResult r;
    try (Dataset ds = Dataset.open(uri.toString())) {
      r =
          ds.cleanup(
              dev.lancelot.engine.CleanupOptions.retainVersions(1).withDeleteUnverified(true));
    }
    assertThat(r.versionsRemoved()).containsExactly(1L);
    java.util.Set<String> kept = blobDirectories(uri);
    assertThat(kept).doesNotContainAnyElementsOf(first);
    java.util.Set<String> expected = new java.util.TreeSet<>(both);
    expected.removeAll(first);
    assertThat(kept).isEqualTo(expected);
    Map<Long, byte[]> theirs = lanceBlobsById(uri.toString(), allocator);
    assertThat(theirs.keySet()).allMatch(id -> id >= 500);
    assertBlobs(theirs, true, "lance-core after cleanup");
  }

  /** The blob directories ({@code data/<stem>/}) of a dataset, by name. */
  private static java.util.Set<String> blobDirectories(Path uri) throws java.io.IOException {
    try (java.util.stream.Stream<Path> s = java.nio.file.Files.list(uri.resolve("data"))) {
      return s.filter(java.nio.file.Files::isDirectory)
          .map(p -> p.getFileName().toString())
          .collect(java.util.stream.Collectors.toCollection(java.util.TreeSet::new));
    }
  }

  @Test
  void blobColumnsInTheWrongEncodingOrNestedAreRefused() {
    LanceSchema legacy = LanceSchema.fromArrow(schema());
    LanceSchema v2 = legacy.withBlobEncodingFor("2.2");
    assertThat(v2.fields().get(1).isBlobV2()).isTrue();
    assertThat(v2.fields().get(1).id()).isEqualTo(1);
    assertThat(legacy.withBlobEncodingFor("2.1")).isSameAs(legacy);
    dev.lancelot.engine.io.HadoopFileIO io = dev.lancelot.engine.io.HadoopFileIO.local();
    String file = dev.lancelot.engine.io.HadoopFileIO.qualify(dir.resolve("x.lance").toString());
    assertThatThrownBy(
            () ->
                dev.lancelot.engine.internal.file.LanceFileWriter.create(
                    io.create(file),
                    legacy,
                    dev.lancelot.engine.internal.file.WriterOptions.defaults()
                        .withVersion(dev.lancelot.engine.internal.file.FileVersion.V2_2)))
        .isInstanceOf(SchemaException.class)
        .hasMessageContaining("2.2 files store blob columns as blob v2");
    Schema nested =
        new Schema(
            List.of(
                new Field(
                    "s",
                    FieldType.nullable(ArrowType.Struct.INSTANCE),
                    List.of(schema().getFields().get(1)))));
    assertThatThrownBy(
            () ->
                dev.lancelot.engine.internal.file.write.ColumnBuffers.check(
                    LanceSchema.fromArrow(nested).fields().get(0)))
        .isInstanceOf(SchemaException.class)
        .hasMessageContaining("top-level blob columns only");
  }
}
