package dev.lancelot.engine.index.scalar;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.testing.ArrowStreams;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** Test data with every indexable kind, NULLs and float/string edge values, and scan helpers. */
final class BTreeTesting {
  private BTreeTesting() {}

  static final double[] SPECIAL_DOUBLES = {
    Double.NaN,
    Double.longBitsToDouble(0xfff8000000000000L),
    -0.0,
    0.0,
    Double.NEGATIVE_INFINITY,
    Double.POSITIVE_INFINITY,
    Double.MAX_VALUE,
    -Double.MIN_VALUE
  };
  static final String[] WORDS = {
    "", "a", "ab", "abc", "b", "B", "zz", "é", "éa", "user-1", "user-10", "user-2"
  };

  static Schema mixedSchema() {
    Field item =
        new Field(
            "item",
            FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
            null);
    return new Schema(
        List.of(
            new Field("i32", FieldType.nullable(new ArrowType.Int(32, true)), null),
            new Field("i64", FieldType.nullable(new ArrowType.Int(64, true)), null),
            new Field("u64", FieldType.nullable(new ArrowType.Int(64, false)), null),
            new Field(
                "f64",
                FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
                null),
            new Field(
                "f32",
                FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
                null),
            new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field("bin", FieldType.nullable(ArrowType.Binary.INSTANCE), null),
            new Field("d", FieldType.nullable(new ArrowType.Date(DateUnit.DAY)), null),
            new Field(
                "ts",
                FieldType.nullable(new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
                null),
            new Field("flag", FieldType.nullable(ArrowType.Bool.INSTANCE), null),
            new Field("vec", FieldType.nullable(new ArrowType.FixedSizeList(2)), List.of(item))));
  }

  /** {@code rows} rows starting at row number {@code first}; deterministic per (seed, first). */
  static VectorSchemaRoot mixed(BufferAllocator allocator, int first, int rows, long seed) {
    VectorSchemaRoot root = VectorSchemaRoot.create(mixedSchema(), allocator);
    root.allocateNew();
    Random r = new Random(seed * 31 + first);
    IntVector i32 = (IntVector) root.getVector("i32");
    BigIntVector i64 = (BigIntVector) root.getVector("i64");
    UInt8Vector u64 = (UInt8Vector) root.getVector("u64");
    Float8Vector f64 = (Float8Vector) root.getVector("f64");
    Float4Vector f32 = (Float4Vector) root.getVector("f32");
    VarCharVector s = (VarCharVector) root.getVector("s");
    VarBinaryVector bin = (VarBinaryVector) root.getVector("bin");
    DateDayVector d = (DateDayVector) root.getVector("d");
    TimeStampMicroTZVector ts = (TimeStampMicroTZVector) root.getVector("ts");
    BitVector flag = (BitVector) root.getVector("flag");
    FixedSizeListVector vec = (FixedSizeListVector) root.getVector("vec");
    Float4Vector items = (Float4Vector) vec.getDataVector();
    items.allocateNew(rows * 2);
    for (int k = 0; k < rows; k++) {
      int n = first + k;
      if (n % 11 == 0) {
        i32.setNull(k);
      } else {
        i32.setSafe(k, (int) Math.floor(Math.pow(r.nextDouble(), 3) * 50));
      }
      long[] extremes = {Long.MIN_VALUE, Long.MAX_VALUE, 0, -1};
      i64.setSafe(k, n % 97 == 0 ? extremes[(n / 97) % 4] : r.nextLong() % 1000);
      if (n % 13 == 0) {
        u64.setNull(k);
      } else {
        u64.setSafe(k, n % 5 == 0 ? -1L - r.nextInt(3) : r.nextInt(20));
      }
      if (n % 17 == 0) {
        f64.setNull(k);
      } else {
        f64.setSafe(
            k,
            n % 7 == 0
                ? SPECIAL_DOUBLES[(n / 7) % SPECIAL_DOUBLES.length]
                : Math.round(r.nextGaussian() * 8) / 4.0);
      }
      float[] floats = {0.1f, -0.0f, 0.0f, Float.NaN, 1.5f, -2.25f};
      f32.setSafe(k, floats[r.nextInt(floats.length)]);
      if (n % 9 == 0) {
        s.setNull(k);
      } else {
        s.setSafe(
            k,
            (WORDS[r.nextInt(WORDS.length)] + (n % 4 == 0 ? "" : Integer.toString(r.nextInt(5))))
                .getBytes(StandardCharsets.UTF_8));
      }
      if (n % 10 == 0) {
        bin.setNull(k);
      } else {
        bin.setSafe(
            k,
            new byte[] {(byte) r.nextInt(4), (byte) (r.nextBoolean() ? 0xFF : 0x01)},
            0,
            1 + r.nextInt(2));
      }
      if (n % 8 == 0) {
        d.setNull(k);
      } else {
        d.setSafe(k, 19000 + r.nextInt(30));
      }
      ts.setSafe(k, 1_700_000_000_000_000L + r.nextInt(20) * 500_000L);
      if (n % 6 == 0) {
        flag.setNull(k);
      } else {
        flag.setSafe(k, r.nextInt(3) == 0 ? 1 : 0);
      }
      vec.setNotNull(k);
      items.setSafe(2 * k, k);
      items.setSafe(2 * k + 1, -k);
    }
    items.setValueCount(rows * 2);
    for (FieldVector v : root.getFieldVectors()) {
      v.setValueCount(rows);
    }
    root.setRowCount(rows);
    return root;
  }

  /** Writes {@code rows} mixed rows with this project's writer (create or append). */
  static Dataset write(
      BufferAllocator allocator,
      Path dir,
      int first,
      int rows,
      int rowsPerFragment,
      WriteMode mode) {
    try (VectorSchemaRoot batch = mixed(allocator, first, rows, 5);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch))) {
      return Dataset.write(
          dir.toString(), reader, WriteOptions.of(mode).withMaxRowsPerFile(rowsPerFragment));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Row addresses our scan selects with {@code filter}. */
  static TreeSet<Long> scanAddresses(Dataset dataset, String filter) {
    TreeSet<Long> out = new TreeSet<>();
    try (CloseableIterator<VectorSchemaRoot> it =
        dataset.newScan().columns(List.of()).filter(filter).withRowAddress(true).batches()) {
      while (it.hasNext()) {
        VectorSchemaRoot b = it.next();
        UInt8Vector a = (UInt8Vector) b.getVector("_rowaddr");
        for (int i = 0; i < b.getRowCount(); i++) {
          out.add(a.get(i));
        }
      }
    }
    return out;
  }

  static TreeSet<Long> addresses(ScalarIndexResult result) {
    TreeSet<Long> out = new TreeSet<>();
    result.rowAddresses().forEach(out::add);
    return out;
  }

  /** The index answer with deleted rows removed, as a sorted set. */
  static TreeSet<Long> indexAddresses(Dataset dataset, String filter) {
    ScalarIndexQuery q = ScalarIndexQuery.plan(dataset, filter);
    if (!q.isExact()) {
      throw new AssertionError("not exact: " + q.explain());
    }
    return addresses(q.evaluate().withoutDeletedRows(dataset));
  }
}
