package dev.lancelot.engine.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Blob;
import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.io.ReadCounters;
import dev.lancelot.engine.testing.ArrowStreams;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Blob columns as lance-core 7.0.0 writes them: the legacy encoding ({@code large_binary} with
 * {@code lance-encoding:blob = true}) in files 2.0 and 2.1, and blob v2 ({@code lance.blob.v2}
 * structs) in 2.2 with inline, packed and dedicated blobs. lancelot's scans and takes return every
 * row's bytes, its {@link Dataset#openBlob} reads the same ranges as lance-core's {@code BlobFile},
 * a scan without the column reads none of the blob bytes, and a deleted row's blob is refused
 * (lancelot's own blob writes: {@link BlobWriteOracleTest}).
 */
@Tag("oracle")
public class BlobOracleTest {
  @TempDir static Path dir;
  static BufferAllocator allocator;

  @BeforeAll
  static void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  static void tearDown() {
    allocator.close();
  }

  /** Row sizes: -1 is null. Inline below 64 KiB, packed below 4 MiB, dedicated above (v2). */
  public static final int[] SIZES = {
    10, 100_000, 5_000_000, -1, 0, 70_000, 20, 6_000_000, 3_000, -1, 1, 200_000
  };

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of("2.0", false), Arguments.of("2.1", false), Arguments.of("2.2", true));
  }

  public static byte[] value(int row) {
    byte[] v = new byte[SIZES[row]];
    for (int i = 0; i < v.length; i++) {
      v[i] = (byte) (row * 31 + i * 7 + (i >> 9));
    }
    return v;
  }

  static Field blobField(boolean v2) {
    if (v2) {
      return new Field(
          "b",
          new FieldType(
              true,
              ArrowType.Struct.INSTANCE,
              null,
              Map.of("ARROW:extension:name", "lance.blob.v2")),
          List.of(
              Field.nullable("data", ArrowType.LargeBinary.INSTANCE),
              Field.nullable("uri", ArrowType.Utf8.INSTANCE)));
    }
    return new Field(
        "b",
        new FieldType(
            true, ArrowType.LargeBinary.INSTANCE, null, Map.of("lance-encoding:blob", "true")),
        List.of());
  }

  /**
   * Writes the rows ({@link #SIZES}, {@link #value}) with lance-core under {@code base}, 7 rows per
   * fragment, as legacy blobs in 2.0 and 2.1 or blob v2 in 2.2.
   */
  public static Path write(Path base, String version, BufferAllocator allocator) throws Exception {
    boolean v2 = version.equals("2.2");
    Path uri = base.resolve("blobs-" + version);
    Schema schema =
        new Schema(List.of(Field.nullable("id", new ArrowType.Int(64, true)), blobField(v2)));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      root.allocateNew();
      BigIntVector id = (BigIntVector) root.getVector(0);
      for (int i = 0; i < SIZES.length; i++) {
        id.setSafe(i, i);
        if (v2) {
          StructVector st = (StructVector) root.getVector(1);
          if (SIZES[i] < 0) {
            st.setNull(i);
            continue;
          }
          st.setIndexDefined(i);
          ((LargeVarBinaryVector) st.getChild("data")).setSafe(i, value(i));
          ((VarCharVector) st.getChild("uri")).setNull(i);
        } else {
          LargeVarBinaryVector b = (LargeVarBinaryVector) root.getVector(1);
          if (SIZES[i] < 0) {
            b.setNull(i);
          } else {
            b.setSafe(i, value(i));
          }
        }
      }
      root.setRowCount(SIZES.length);
      try (ArrowReader source = ArrowStreams.readerOf(allocator, List.of(root));
          org.lance.Dataset ds =
              org.lance.Dataset.write()
                  .allocator(allocator)
                  .reader(source)
                  .uri(uri.toString())
                  .maxRowsPerFile(7)
                  .dataStorageVersion(version)
                  .execute()) {
        assertThat(ds.getFragments()).hasSize(2);
      }
    }
    return uri;
  }

  public static long address(int row) {
    return row < 7 ? row : (1L << 32) | (row - 7);
  }

  /** lance-core's bytes of a row's blob (its BlobFile), or null when it returns none. */
  static byte[] lanceBlob(org.lance.Dataset ds, int row) throws Exception {
    List<org.lance.BlobFile> got = ds.takeBlobs(List.of(address(row)), "b");
    if (got.isEmpty()) {
      return null;
    }
    try (org.lance.BlobFile f = got.get(0)) {
      return f.size() == 0 ? new byte[0] : f.readRange(0, (int) f.size());
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void readsBlobsAsLanceDoes(String version, boolean v2) throws Exception {
    Path uri = write(dir, version, allocator);
    long blobBytes = Arrays.stream(SIZES).filter(s -> s > 0).asLongStream().sum();
    try (org.lance.Dataset lance =
            org.lance.Dataset.open().allocator(allocator).uri(uri.toString()).build();
        Dataset ds = Dataset.open(uri.toString())) {
      assertThat(ds.schema().findField("b").getType()).isEqualTo(ArrowType.LargeBinary.INSTANCE);
      // lance-core's bytes are the ones written; null rows have no bytes (or none at all in v2)
      for (int i = 0; i < SIZES.length; i++) {
        byte[] theirs = lanceBlob(lance, i);
        if (SIZES[i] < 0) {
          assertThat(theirs == null || theirs.length == 0)
              .as("lance-core, null row %d", i)
              .isTrue();
        } else {
          assertThat(theirs).as("lance-core, row %d", i).isEqualTo(value(i));
        }
      }
      // a scan with the column returns every row's bytes
      List<byte[]> scanned = new ArrayList<>();
      ReadCounters.Reading before = ReadCounters.now();
      try (CloseableIterator<VectorSchemaRoot> it =
          ds.newScan().columns("id", "b").batchSize(5).batches()) {
        while (it.hasNext()) {
          try (VectorSchemaRoot root = it.next()) {
            LargeVarBinaryVector b = (LargeVarBinaryVector) root.getVector("b");
            for (int r = 0; r < root.getRowCount(); r++) {
              scanned.add(b.isNull(r) ? null : b.get(r));
            }
          }
        }
      }
      assertThat(before.since().bytesRead()).isGreaterThanOrEqualTo(blobBytes);
      assertThat(scanned).hasSize(SIZES.length);
      for (int i = 0; i < SIZES.length; i++) {
        assertThat(scanned.get(i)).as("scan, row %d", i).isEqualTo(SIZES[i] < 0 ? null : value(i));
      }
      // a scan without it reads none of the blob bytes
      before = ReadCounters.now();
      try (CloseableIterator<VectorSchemaRoot> it = ds.newScan().columns("id").batches()) {
        while (it.hasNext()) {
          it.next().close();
        }
      }
      assertThat(before.since().bytesRead()).isLessThan(SIZES[6] * 1000L);
      // take
      long[] rows = {address(11), address(2), address(3), address(4)};
      try (VectorSchemaRoot taken = ds.take(rows, List.of("b", "id"))) {
        LargeVarBinaryVector b = (LargeVarBinaryVector) taken.getVector(0);
        assertThat(b.get(0)).isEqualTo(value(11));
        assertThat(b.get(1)).isEqualTo(value(2));
        assertThat(b.isNull(2)).isTrue();
        assertThat(b.get(3)).isEmpty();
      }
      // ranged reads of one blob, against lance-core's BlobFile
      before = ReadCounters.now();
      try (Blob blob = ds.openBlob("b", address(7)).orElseThrow();
          org.lance.BlobFile theirs = lance.takeBlobs(List.of(address(7)), "b").get(0)) {
        assertThat(blob.size()).isEqualTo(theirs.size()).isEqualTo(SIZES[7]);
        assertThat(blob.read(1_234_567, 1000)).isEqualTo(theirs.readRange(1_234_567, 1000));
        assertThat(blob.read(SIZES[7] - 10, 10)).isEqualTo(theirs.readRange(SIZES[7] - 10, 10));
        assertThat(blob.openStream().readAllBytes()).isEqualTo(value(7));
      }
      try (Blob blob = ds.openBlob("b", address(0)).orElseThrow()) {
        assertThat(blob.read(2, 5)).isEqualTo(Arrays.copyOfRange(value(0), 2, 7));
      }
      assertThat(ds.openBlob("b", address(9))).isEmpty();
      try (Blob blob = ds.openBlob("b", address(4)).orElseThrow()) {
        assertThat(blob.size()).isZero();
        assertThat(blob.readAll()).isEmpty();
      }
      try (Blob blob = ds.openBlob("b", address(1)).orElseThrow()) {
        assertThatThrownBy(() -> blob.read(SIZES[1] - 5, 10))
            .isInstanceOf(InvalidInputException.class)
            .hasMessageContaining("within the blob");
      }
      assertThatThrownBy(() -> ds.openBlob("id", 0))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("not a blob column");
      assertThatThrownBy(() -> ds.openBlob("b", (5L << 32)))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("no such row");
    }
    // a deleted row: scans leave it out, its blob is refused, and nothing changes
    try (org.lance.Dataset lance =
        org.lance.Dataset.open().allocator(allocator).uri(uri.toString()).build()) {
      lance.delete("id = 8");
    }
    try (Dataset ds = Dataset.open(uri.toString())) {
      assertThatThrownBy(() -> ds.openBlob("b", address(8)))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("the row is deleted");
      try (Blob blob = ds.openBlob("b", address(11)).orElseThrow()) {
        assertThat(blob.readAll()).isEqualTo(value(11));
      }
      assertThat(ds.countRows()).isEqualTo(SIZES.length - 1);
    }
  }
}
