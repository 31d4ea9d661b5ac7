package dev.lancelot.engine.expr.oracle;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.Float16;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A dataset with one column per supported type, values drawn from small domains (so random literals
 * often hit them), about 12% NULLs everywhere, and a struct column.
 */
final class TypedData {
  static final int ROWS = 2000;

  /** 2023-11-14 22:13:20 UTC in microseconds. */
  static final long BASE_MICROS = 1_700_000_000_000_000L;

  static final int BASE_DAY = 19_700; // 2023-12-09
  static final String[] STRINGS = {
    "apple", "Apple", "a_b", "a%b", "ab", "", "é", "zz\\", "a\\b", "b", "ba", "bab", "Ünïcödé",
    "x\ny", "%", "_", "\\"
  };
  static final double[] FLOATS = {
    -1.5,
    -0.0,
    0.0,
    0.5,
    1.0,
    0.1,
    2.75,
    Double.NaN,
    Double.POSITIVE_INFINITY,
    Double.NEGATIVE_INFINITY,
    -3
  };
  static final byte[][] BYTES = {{}, {0}, {1, (byte) 0xFF}, {1}, {5, 0}, {(byte) 0x80}, {0, 0, 1}};
  static final byte[][] FIXED = {{0, 0, 0}, {0, 0, 1}, {1, 2, 3}, {(byte) 0xFF, 0, 0}};

  private TypedData() {}

  static Schema schema() {
    return new Schema(
        List.of(
            Field.nullable("id", new ArrowType.Int(64, true)),
            Field.nullable("i8", new ArrowType.Int(8, true)),
            Field.nullable("i16", new ArrowType.Int(16, true)),
            Field.nullable("i32", new ArrowType.Int(32, true)),
            Field.nullable("u8", new ArrowType.Int(8, false)),
            Field.nullable("u16", new ArrowType.Int(16, false)),
            Field.nullable("u32", new ArrowType.Int(32, false)),
            Field.nullable("u64", new ArrowType.Int(64, false)),
            Field.nullable("f32", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
            Field.nullable("f64", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
            Field.nullable("f16", new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)),
            Field.nullable("d32", new ArrowType.Date(DateUnit.DAY)),
            Field.nullable("d64", new ArrowType.Date(DateUnit.MILLISECOND)),
            Field.nullable("ts_s", new ArrowType.Timestamp(TimeUnit.SECOND, null)),
            Field.nullable("ts_ms", new ArrowType.Timestamp(TimeUnit.MILLISECOND, null)),
            Field.nullable("ts_us", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)),
            Field.nullable("ts_ns", new ArrowType.Timestamp(TimeUnit.NANOSECOND, null)),
            Field.nullable(
                "tstz", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "America/New_York")),
            Field.nullable("s", ArrowType.Utf8.INSTANCE),
            Field.nullable("ls", ArrowType.LargeUtf8.INSTANCE),
            Field.nullable("bin", ArrowType.Binary.INSTANCE),
            Field.nullable("lbin", ArrowType.LargeBinary.INSTANCE),
            Field.nullable("fbin", new ArrowType.FixedSizeBinary(3)),
            Field.nullable("flag", ArrowType.Bool.INSTANCE),
            Field.nullable("Odd name-1", new ArrowType.Int(32, true)),
            new Field(
                "st",
                FieldType.nullable(ArrowType.Struct.INSTANCE),
                List.of(
                    Field.nullable("x", new ArrowType.Int(32, true)),
                    Field.nullable("s", ArrowType.Utf8.INSTANCE)))));
  }

  static VectorSchemaRoot build(BufferAllocator allocator, long seed) {
    Random r = new Random(seed);
    VectorSchemaRoot root = VectorSchemaRoot.create(schema(), allocator);
    root.allocateNew();
    for (int i = 0; i < ROWS; i++) {
      ((BigIntVector) root.getVector("id")).setSafe(i, i);
      ((TinyIntVector) root.getVector("i8")).setSafe(i, pick(r, -128, 127, -3, 3));
      ((SmallIntVector) root.getVector("i16")).setSafe(i, pick(r, -32768, 32767, -3, 3));
      ((IntVector) root.getVector("i32"))
          .setSafe(i, pick(r, Integer.MIN_VALUE, Integer.MAX_VALUE, -3, 3));
      ((UInt1Vector) root.getVector("u8")).setSafe(i, pick(r, 0, 255, 0, 6));
      ((UInt2Vector) root.getVector("u16")).setSafe(i, pick(r, 0, 65535, 0, 6));
      ((UInt4Vector) root.getVector("u32")).setSafe(i, pick(r, 0, -1, 0, 6));
      ((UInt8Vector) root.getVector("u64"))
          .setSafe(i, r.nextInt(8) == 0 ? -1L : r.nextInt(8) == 0 ? Long.MIN_VALUE : r.nextInt(7));
      double d = FLOATS[r.nextInt(FLOATS.length)];
      ((Float4Vector) root.getVector("f32")).setSafe(i, (float) d);
      ((Float8Vector) root.getVector("f64")).setSafe(i, d);
      ((Float2Vector) root.getVector("f16")).setSafe(i, Float16.toFloat16((float) d));
      ((DateDayVector) root.getVector("d32")).setSafe(i, BASE_DAY + r.nextInt(7) - 3);
      ((DateMilliVector) root.getVector("d64"))
          .setSafe(i, (BASE_DAY + r.nextInt(7) - 3) * 86_400_000L + (r.nextInt(4) == 0 ? 500 : 0));
      long micros =
          BASE_MICROS
              + (r.nextInt(9) - 4) * 3_600_000_000L
              + (r.nextBoolean() ? 0 : r.nextInt(3) * 500_000L);
      ((TimeStampVector) root.getVector("ts_s")).setSafe(i, Math.floorDiv(micros, 1_000_000L));
      ((TimeStampVector) root.getVector("ts_ms")).setSafe(i, Math.floorDiv(micros, 1000L));
      ((TimeStampVector) root.getVector("ts_us")).setSafe(i, micros);
      ((TimeStampVector) root.getVector("ts_ns")).setSafe(i, micros * 1000L + r.nextInt(2));
      ((TimeStampVector) root.getVector("tstz")).setSafe(i, micros);
      byte[] str = STRINGS[r.nextInt(STRINGS.length)].getBytes(StandardCharsets.UTF_8);
      ((VarCharVector) root.getVector("s")).setSafe(i, str);
      ((LargeVarCharVector) root.getVector("ls")).setSafe(i, str);
      byte[] bin = BYTES[r.nextInt(BYTES.length)];
      ((VarBinaryVector) root.getVector("bin")).setSafe(i, bin);
      ((LargeVarBinaryVector) root.getVector("lbin")).setSafe(i, bin);
      ((FixedSizeBinaryVector) root.getVector("fbin")).setSafe(i, FIXED[r.nextInt(FIXED.length)]);
      ((BitVector) root.getVector("flag")).setSafe(i, r.nextInt(2));
      ((IntVector) root.getVector("Odd name-1")).setSafe(i, r.nextInt(5));
      StructVector st = (StructVector) root.getVector("st");
      ((IntVector) st.getChild("x")).setSafe(i, r.nextInt(7) - 3);
      ((VarCharVector) st.getChild("s"))
          .setSafe(i, STRINGS[r.nextInt(STRINGS.length)].getBytes(StandardCharsets.UTF_8));
      st.setIndexDefined(i);
      for (FieldVector v : root.getFieldVectors()) {
        if (!v.getName().equals("id") && r.nextInt(8) == 0) {
          v.setNull(i);
        }
      }
      if (r.nextInt(8) == 0) {
        ((IntVector) st.getChild("x")).setNull(i);
      }
    }
    for (FieldVector v : root.getFieldVectors()) {
      v.setValueCount(ROWS);
    }
    StructVector st = (StructVector) root.getVector("st");
    st.getChild("x").setValueCount(ROWS);
    st.getChild("s").setValueCount(ROWS);
    root.setRowCount(ROWS);
    return root;
  }

  /** An extreme value now and then, else one from a small range around zero. */
  private static int pick(Random r, int min, int max, int lo, int hi) {
    int c = r.nextInt(10);
    return c == 0 ? min : c == 1 ? max : lo + r.nextInt(hi - lo + 1);
  }
}
