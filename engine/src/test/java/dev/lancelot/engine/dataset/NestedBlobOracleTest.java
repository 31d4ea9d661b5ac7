package dev.lancelot.engine.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Blob;
import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.testing.ArrowStreams;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
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
import org.junit.jupiter.params.provider.ValueSource;
import org.lance.WriteParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * Blob fields inside structs, as lance-core 7.0.0 writes them (a {@code large_binary} member with
 * {@code lance-encoding:blob = true}; legacy blob pages in 2.1 and 2.2 files alike, each null
 * entry's definition level folded into its descriptor): lancelot's scans, takes and {@link
 * Dataset#openBlob} return what lance-core's scan (struct validity, the other members, which blobs
 * are null) and {@code takeBlobs} (the bytes) give, with nulls at every level, empty values, values
 * above the 64 KiB and 4 MiB thresholds, several fragments and a deleted row. Blob fields inside
 * lists, which lance-core writes without their list lengths (and cannot read back), are refused
 * naming the field.
 */
@Tag("oracle")
public class NestedBlobOracleTest {
  private static BufferAllocator allocator;

  @BeforeAll
  static void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  static void tearDown() {
    allocator.close();
  }

  /** Sizes of {@code s.b} by row: -1 a null blob, -2 a null struct {@code s}. */
  public static final int[] SIZES = {
    10, 0, -1, 70_000, 5_000_000, -2, 20, 100_000, 3, -1, 1, 200_000, 0, 7
  };

  private static Field blob(String name) {
    return new Field(
        name,
        new FieldType(
            true, ArrowType.LargeBinary.INSTANCE, null, Map.of("lance-encoding:blob", "true")),
        null);
  }

  public static byte[] value(int row, int size) {
    byte[] v = new byte[size];
    for (int i = 0; i < size; i++) {
      v[i] = (byte) (row * 13 + i * 5 + (i >> 10));
    }
    return v;
  }

  private static Schema schema(boolean withList) {
    List<Field> fields = new ArrayList<>();
    fields.add(Field.notNullable("id", new ArrowType.Int(64, true)));
    fields.add(
        new Field(
            "s",
            FieldType.nullable(ArrowType.Struct.INSTANCE),
            List.of(blob("b"), Field.nullable("x", new ArrowType.Int(32, true)))));
    fields.add(
        new Field(
            "t",
            FieldType.nullable(ArrowType.Struct.INSTANCE),
            List.of(
                new Field(
                    "u", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(blob("c"))))));
    if (withList) {
      fields.add(
          new Field("l", FieldType.nullable(ArrowType.List.INSTANCE), List.of(blob("item"))));
    }
    return new Schema(fields);
  }

  /**
   * lance-core writes {@link #SIZES} rows, 5 per fragment: {@code s: struct<b: blob, x: int32>},
   * {@code t: struct<u: struct<c: blob>>} (t null in row 4, u in row 6, c in row 8) and, when
   * asked, {@code l: list<blob>}.
   */
  static void lanceWrite(Path dir, String version, boolean withList) {
    lanceWrite(dir, version, withList, allocator);
  }

  /** {@link #lanceWrite(Path, String, boolean)} with the given allocator. */
  public static void lanceWrite(
      Path dir, String version, boolean withList, BufferAllocator allocator) {
    int n = SIZES.length;
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema(withList), allocator)) {
      root.allocateNew();
      BigIntVector id = (BigIntVector) root.getVector("id");
      StructVector s = (StructVector) root.getVector("s");
      LargeVarBinaryVector b = (LargeVarBinaryVector) s.getChild("b");
      IntVector x = (IntVector) s.getChild("x");
      StructVector t = (StructVector) root.getVector("t");
      StructVector u = (StructVector) t.getChild("u");
      LargeVarBinaryVector c = (LargeVarBinaryVector) u.getChild("c");
      for (int i = 0; i < n; i++) {
        id.setSafe(i, i);
        if (SIZES[i] == -2) {
          s.setNull(i);
          b.setNull(i);
          x.setNull(i);
        } else {
          s.setIndexDefined(i);
          x.setSafe(i, i * 10);
          if (SIZES[i] == -1) {
            b.setNull(i);
          } else {
            b.setSafe(i, value(i, SIZES[i]));
          }
        }
        if (i == 4) {
          t.setNull(i);
          u.setNull(i);
          c.setNull(i);
        } else {
          t.setIndexDefined(i);
          if (i == 6) {
            u.setNull(i);
            c.setNull(i);
          } else {
            u.setIndexDefined(i);
            if (i == 8) {
              c.setNull(i);
            } else {
              c.setSafe(i, value(100 + i, i % 3 == 0 ? 80_000 : i));
            }
          }
        }
      }
      if (withList) {
        ListVector l = (ListVector) root.getVector("l");
        LargeVarBinaryVector item = (LargeVarBinaryVector) l.getDataVector();
        for (int i = 0; i < n; i++) {
          l.startNewValue(i);
          item.setSafe(i, value(200 + i, 4));
          l.endValue(i, 1);
        }
        item.setValueCount(n);
        l.setValueCount(n);
      }
      b.setValueCount(n);
      x.setValueCount(n);
      s.setValueCount(n);
      c.setValueCount(n);
      u.setValueCount(n);
      t.setValueCount(n);
      root.setRowCount(n);
      org.lance.Dataset.write()
          .allocator(allocator)
          .reader(ArrowStreams.readerOf(allocator, List.of(root)))
          .uri(dir.toString())
          .mode(WriteParams.WriteMode.CREATE)
          .maxRowsPerFile(5)
          .dataStorageVersion(version)
          .execute()
          .close();
    }
  }

  private static String hex(byte[] b) {
    return b == null ? null : HexFormat.of().formatHex(b);
  }

  /** The bytes of lance-core's {@code takeBlobs} of one row address. */
  private static byte[] lanceBlob(org.lance.Dataset ds, long address, String column)
      throws Exception {
    List<org.lance.BlobFile> got = ds.takeBlobs(List.of(address), column);
    assertThat(got).hasSize(1);
    try (org.lance.BlobFile f = got.get(0)) {
      return f.size() == 0 ? new byte[0] : f.readRange(0, (int) f.size());
    }
  }

  /**
   * lance-core's rows: [row address, id, s, t] with s as [b hex, x] and t as [[c hex]] (null where
   * lance-core's scan has a null), the bytes from {@code takeBlobs}.
   */
  static List<List<Object>> lanceRows(Path dir) throws Exception {
    List<List<Object>> out = new ArrayList<>();
    try (org.lance.Dataset ds =
            org.lance.Dataset.open(
                allocator, dir.toString(), new org.lance.ReadOptions.Builder().build());
        LanceScanner scanner =
            ds.newScan(
                new ScanOptions.Builder()
                    .columns(List.of("id", "s", "t"))
                    .withRowAddress(true)
                    .build());
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot r = reader.getVectorSchemaRoot();
        BigIntVector id = (BigIntVector) r.getVector("id");
        StructVector s = (StructVector) r.getVector("s");
        StructVector t = (StructVector) r.getVector("t");
        StructVector u = (StructVector) t.getChild("u");
        org.apache.arrow.vector.UInt8Vector address =
            (org.apache.arrow.vector.UInt8Vector) r.getVector("_rowaddr");
        for (int i = 0; i < r.getRowCount(); i++) {
          long a = address.get(i);
          List<Object> sRow = null;
          if (!s.isNull(i)) {
            boolean bNull = s.getChild("b").isNull(i);
            sRow =
                Arrays.asList(
                    bNull ? null : hex(lanceBlob(ds, a, "s.b")),
                    ((IntVector) s.getChild("x")).getObject(i));
          }
          List<Object> tRow = null;
          if (!t.isNull(i)) {
            List<Object> uRow = null;
            if (!u.isNull(i)) {
              uRow =
                  Arrays.asList(u.getChild("c").isNull(i) ? null : hex(lanceBlob(ds, a, "t.u.c")));
            }
            tRow = Arrays.asList((Object) uRow);
          }
          out.add(Arrays.asList(a, id.get(i), sRow, tRow));
        }
      }
    }
    return out;
  }

  /** lancelot's rows of {@code root} in the form of {@link #lanceRows}, with addresses given. */
  static List<List<Object>> rows(VectorSchemaRoot root, long[] addresses, int first) {
    List<List<Object>> out = new ArrayList<>();
    BigIntVector id = (BigIntVector) root.getVector("id");
    StructVector s = (StructVector) root.getVector("s");
    StructVector t = (StructVector) root.getVector("t");
    StructVector u = (StructVector) t.getChild("u");
    LargeVarBinaryVector b = (LargeVarBinaryVector) s.getChild("b");
    LargeVarBinaryVector c = (LargeVarBinaryVector) u.getChild("c");
    for (int i = 0; i < root.getRowCount(); i++) {
      List<Object> sRow =
          s.isNull(i)
              ? null
              : Arrays.asList(
                  b.isNull(i) ? null : hex(b.get(i)), ((IntVector) s.getChild("x")).getObject(i));
      List<Object> tRow =
          t.isNull(i)
              ? null
              : Arrays.asList(
                  (Object)
                      (u.isNull(i) ? null : Arrays.asList(c.isNull(i) ? null : hex(c.get(i)))));
      out.add(Arrays.asList(addresses[first + i], id.get(i), sRow, tRow));
    }
    return out;
  }

  private static List<List<Object>> scan(Dataset ds, List<Long> addresses) {
    long[] a = addresses.stream().mapToLong(Long::longValue).toArray();
    List<List<Object>> out = new ArrayList<>();
    try (CloseableIterator<VectorSchemaRoot> it =
        ds.newScan().columns(List.of("id", "s", "t")).batchSize(3).batches()) {
      while (it.hasNext()) {
        try (VectorSchemaRoot root = it.next()) {
          out.addAll(rows(root, a, out.size()));
        }
      }
    }
    return out;
  }

  @ParameterizedTest
  @ValueSource(strings = {"2.1", "2.2"})
  void readsBlobsInsideStructsAsLanceDoes(String version, @TempDir Path tmp) throws Exception {
    Path dir = tmp.resolve("nested");
    lanceWrite(dir, version, false);
    check(dir);
    try (org.lance.Dataset lance =
        org.lance.Dataset.open(
            allocator, dir.toString(), new org.lance.ReadOptions.Builder().build())) {
      lance.delete("id = 7");
    }
    List<List<Object>> theirs = check(dir);
    assertThat(theirs).extracting(r -> r.get(1)).doesNotContain(7L);
    try (Dataset ds = Dataset.open(dir.toString())) {
      long deleted = (1L << 32) | 2;
      assertThatThrownBy(() -> ds.openBlob("s.b", deleted))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("the row is deleted");
    }
  }

  /** Compares lancelot's scan, take and openBlob with lance-core's reads; returns lance-core's. */
  private static List<List<Object>> check(Path dir) throws Exception {
    List<List<Object>> theirs = lanceRows(dir);
    assertThat(theirs).hasSizeGreaterThan(10);
    List<Long> addresses = new ArrayList<>();
    for (List<Object> r : theirs) {
      addresses.add((Long) r.get(0));
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThat(ds.schema().findField("s").getChildren().get(0).getType())
          .isEqualTo(ArrowType.LargeBinary.INSTANCE);
      assertThat(scan(ds, addresses)).isEqualTo(theirs);
      // a take of some rows, out of their order
      int[] picks = {11, 3, 4, 5, 0};
      long[] a = new long[picks.length];
      for (int k = 0; k < picks.length; k++) {
        a[k] = addresses.get(Math.min(picks[k], addresses.size() - 1));
      }
      try (VectorSchemaRoot taken = ds.take(a, List.of("id", "s", "t"))) {
        List<List<Object>> expected = new ArrayList<>();
        for (long x : a) {
          expected.add(theirs.get(addresses.indexOf(x)));
        }
        assertThat(rows(taken, a, 0)).isEqualTo(expected);
      }
      // one blob in ranges, against lance-core's BlobFile
      try (org.lance.Dataset lance =
          org.lance.Dataset.open(
              allocator, dir.toString(), new org.lance.ReadOptions.Builder().build())) {
        for (int k = 0; k < addresses.size(); k++) {
          long x = addresses.get(k);
          List<?> s = (List<?>) theirs.get(k).get(2);
          var mine = ds.openBlob("s.b", x);
          if (s == null || s.get(0) == null) {
            assertThat(mine).as("row %d", x).isEmpty();
            continue;
          }
          try (Blob blob = mine.orElseThrow();
              org.lance.BlobFile file = lance.takeBlobs(List.of(x), "s.b").get(0)) {
            assertThat(blob.size()).isEqualTo(file.size());
            if (blob.size() > 10) {
              long at = blob.size() / 2;
              assertThat(blob.read(at, 7)).isEqualTo(file.readRange(at, 7));
            }
            assertThat(hex(blob.readAll())).isEqualTo(s.get(0));
          }
          List<?> t = (List<?>) theirs.get(k).get(3);
          List<?> u = t == null ? null : (List<?>) t.get(0);
          var c = ds.openBlob("t.u.c", x);
          if (u == null || u.get(0) == null) {
            assertThat(c).as("t.u.c of row %d", x).isEmpty();
          } else {
            try (Blob blob = c.orElseThrow()) {
              assertThat(hex(blob.readAll())).isEqualTo(u.get(0));
            }
          }
        }
      }
      assertThatThrownBy(() -> ds.openBlob("s.x", 0))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("not a blob column");
    }
    return theirs;
  }

  @ParameterizedTest
  @ValueSource(strings = {"2.1", "2.2"})
  void refusesBlobsInsideListsNamingThem(String version, @TempDir Path tmp) throws Exception {
    Path dir = tmp.resolve("lists");
    lanceWrite(dir, version, true);
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThatThrownBy(
              () -> {
                try (CloseableIterator<VectorSchemaRoot> it =
                    ds.newScan().columns(List.of("l")).batches()) {
                  it.hasNext();
                }
              })
          .hasMessageContaining("Cannot read field \"l\"")
          .hasMessageContaining("blob field \"item\"")
          .hasMessageContaining("without the list lengths");
      assertThatThrownBy(() -> ds.take(new long[] {0}, List.of("id", "l")).close())
          .hasMessageContaining("without the list lengths");
      assertThatThrownBy(() -> ds.openBlob("l.item", 0))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("inside the list field \"l\"");
      // the other columns read as lance-core reads them
      List<List<Object>> theirs = lanceRows(dir);
      List<Long> addresses = new ArrayList<>();
      for (List<Object> r : theirs) {
        addresses.add((Long) r.get(0));
      }
      assertThat(scan(ds, addresses)).isEqualTo(theirs);
    }
  }

  @org.junit.jupiter.api.Test
  void refusesBlobsInsideStructsOfFormat20Files(@TempDir Path tmp) throws Exception {
    Path dir = tmp.resolve("v20");
    lanceWrite(dir, "2.0", false);
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThatThrownBy(
              () -> {
                try (CloseableIterator<VectorSchemaRoot> it =
                    ds.newScan().columns(List.of("s")).batches()) {
                  it.hasNext();
                }
              })
          .hasMessageContaining("Cannot read field \"s\"")
          .hasMessageContaining("blob field \"b\"")
          .hasMessageContaining("format 2.1 and later");
      List<List<Object>> ids = new ArrayList<>();
      try (CloseableIterator<VectorSchemaRoot> it = ds.newScan().columns(List.of("id")).batches()) {
        while (it.hasNext()) {
          try (VectorSchemaRoot r = it.next()) {
            ids.addAll(dev.lancelot.engine.testing.Rows.of(r));
          }
        }
      }
      assertThat(ids)
          .isEqualTo(
              dev.lancelot.engine.testing.LanceOracle.rows(allocator, dir, List.of("id"), null));
    }
  }
}
