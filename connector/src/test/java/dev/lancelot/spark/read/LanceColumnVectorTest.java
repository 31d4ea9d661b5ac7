package dev.lancelot.spark.read;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.DecimalVector;
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
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Spark's view of Arrow vectors: values, nulls, nested access, without copying. */
class LanceColumnVectorTest {
  private final BufferAllocator allocator = new RootAllocator();
  private final List<FieldVector> vectors = new ArrayList<>();

  @AfterEach
  void close() {
    vectors.forEach(FieldVector::close);
    allocator.close();
  }

  @SuppressWarnings("unchecked")
  private <V extends FieldVector> V vector(String name, ArrowType type, Field... children) {
    Field field =
        new Field(name, FieldType.nullable(type), children.length == 0 ? null : List.of(children));
    V v = (V) field.createVector(allocator);
    v.allocateNew();
    vectors.add(v);
    return v;
  }

  private static Field child(String name, ArrowType type) {
    return new Field(name, FieldType.nullable(type), null);
  }

  private static final ArrowType FLOAT32 =
      new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);

  @Test
  void signedIntegersBooleansAndFloats() {
    BitVector bits = vector("b", ArrowType.Bool.INSTANCE);
    bits.setSafe(0, 1);
    bits.setSafe(1, 0);
    bits.setNull(2);
    bits.setValueCount(3);
    LanceColumnVector b = new LanceColumnVector(bits);
    assertThat(b.dataType()).isEqualTo(DataTypes.BooleanType);
    assertThat(b.getBoolean(0)).isTrue();
    assertThat(b.getBoolean(1)).isFalse();
    assertThat(b.isNullAt(2)).isTrue();
    assertThat(b.hasNull()).isTrue();
    assertThat(b.numNulls()).isEqualTo(1);

    TinyIntVector i8 = vector("i8", new ArrowType.Int(8, true));
    i8.setSafe(0, -128);
    i8.setValueCount(1);
    assertThat(new LanceColumnVector(i8).getByte(0)).isEqualTo((byte) -128);
    SmallIntVector i16 = vector("i16", new ArrowType.Int(16, true));
    i16.setSafe(0, -32768);
    i16.setValueCount(1);
    assertThat(new LanceColumnVector(i16).getShort(0)).isEqualTo((short) -32768);
    IntVector i32 = vector("i32", new ArrowType.Int(32, true));
    i32.setSafe(0, Integer.MIN_VALUE);
    i32.setValueCount(1);
    LanceColumnVector i = new LanceColumnVector(i32);
    assertThat(i.getInt(0)).isEqualTo(Integer.MIN_VALUE);
    assertThat(i.hasNull()).isFalse();
    assertThat(i.isNullAt(0)).isFalse();
    BigIntVector i64 = vector("i64", new ArrowType.Int(64, true));
    i64.setSafe(0, Long.MAX_VALUE);
    i64.setValueCount(1);
    assertThat(new LanceColumnVector(i64).getLong(0)).isEqualTo(Long.MAX_VALUE);

    Float2Vector half = vector("f16", new ArrowType.FloatingPoint(FloatingPointPrecision.HALF));
    half.setSafeWithPossibleTruncate(0, -1.5f);
    half.setValueCount(1);
    LanceColumnVector f16 = new LanceColumnVector(half);
    assertThat(f16.dataType()).isEqualTo(DataTypes.FloatType);
    assertThat(f16.getFloat(0)).isEqualTo(-1.5f);
    Float4Vector f32 = vector("f32", FLOAT32);
    f32.setSafe(0, 3.25f);
    f32.setValueCount(1);
    assertThat(new LanceColumnVector(f32).getFloat(0)).isEqualTo(3.25f);
    Float8Vector f64 = vector("f64", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE));
    f64.setSafe(0, Math.PI);
    f64.setValueCount(1);
    assertThat(new LanceColumnVector(f64).getDouble(0)).isEqualTo(Math.PI);
  }

  @Test
  void unsignedIntegersAreReadWithoutTheirSignBit() {
    UInt1Vector u8 = vector("u8", new ArrowType.Int(8, false));
    u8.setSafe(0, 0xFF);
    u8.setValueCount(1);
    assertThat(new LanceColumnVector(u8).getShort(0)).isEqualTo((short) 255);
    UInt2Vector u16 = vector("u16", new ArrowType.Int(16, false));
    u16.setSafe(0, 0xFFFF);
    u16.setValueCount(1);
    assertThat(new LanceColumnVector(u16).getInt(0)).isEqualTo(65535);
    UInt4Vector u32 = vector("u32", new ArrowType.Int(32, false));
    u32.setSafe(0, -1);
    u32.setValueCount(1);
    assertThat(new LanceColumnVector(u32).getLong(0)).isEqualTo(4_294_967_295L);

    UInt8Vector u64 = vector("u64", new ArrowType.Int(64, false));
    u64.setSafe(0, -1L);
    u64.setSafe(1, 42L);
    u64.setNull(2);
    u64.setValueCount(3);
    LanceColumnVector big = new LanceColumnVector(u64);
    assertThat(big.dataType()).isEqualTo(DataTypes.createDecimalType(20, 0));
    assertThat(big.getDecimal(0, 20, 0).toJavaBigDecimal())
        .isEqualTo(new BigDecimal("18446744073709551615"));
    assertThat(big.getDecimal(1, 20, 0).toJavaBigDecimal()).isEqualTo(new BigDecimal("42"));
    assertThat(big.getDecimal(2, 20, 0)).isNull();

    UInt8Vector rowAddr = vector("_rowaddr", new ArrowType.Int(64, false));
    rowAddr.setSafe(0, (3L << 32) | 7);
    rowAddr.setValueCount(1);
    LanceColumnVector addr = new LanceColumnVector(rowAddr);
    assertThat(addr.dataType()).isEqualTo(DataTypes.LongType);
    assertThat(addr.getLong(0)).isEqualTo((3L << 32) | 7);
  }

  @Test
  void datesAreDaysSinceTheEpochAlsoFromMilliseconds() {
    DateDayVector days = vector("d", new ArrowType.Date(DateUnit.DAY));
    days.setSafe(0, 20_000);
    days.setSafe(1, -1);
    days.setValueCount(2);
    LanceColumnVector d = new LanceColumnVector(days);
    assertThat(d.dataType()).isEqualTo(DataTypes.DateType);
    assertThat(d.getInt(0)).isEqualTo(20_000);
    assertThat(d.getInt(1)).isEqualTo(-1);

    DateMilliVector millis = vector("dm", new ArrowType.Date(DateUnit.MILLISECOND));
    millis.setSafe(0, 2L * 86_400_000L + 5);
    millis.setSafe(1, -1L); // 1969-12-31T23:59:59.999: day -1, not 0
    millis.setValueCount(2);
    LanceColumnVector dm = new LanceColumnVector(millis);
    assertThat(dm.getInt(0)).isEqualTo(2);
    assertThat(dm.getInt(1)).isEqualTo(-1);
  }

  @Test
  void timestampsOfEveryUnitAreMicrosecondsRoundedDown() {
    long[][] rawAndMicros = {{5, 5_000_000}, {5, 5_000}, {5, 5}, {5_999, 5}};
    TimeUnit[] units = {
      TimeUnit.SECOND, TimeUnit.MILLISECOND, TimeUnit.MICROSECOND, TimeUnit.NANOSECOND
    };
    for (int u = 0; u < units.length; u++) {
      for (String zone : new String[] {null, "UTC"}) {
        TimeStampVector ts = vector("ts", new ArrowType.Timestamp(units[u], zone));
        ts.setSafe(0, rawAndMicros[u][0]);
        ts.setSafe(1, -rawAndMicros[u][0]);
        ts.setNull(2);
        ts.setValueCount(3);
        LanceColumnVector c = new LanceColumnVector(ts);
        assertThat(c.dataType())
            .isEqualTo(zone == null ? DataTypes.TimestampNTZType : DataTypes.TimestampType);
        assertThat(c.getLong(0)).as("%s %s", units[u], zone).isEqualTo(rawAndMicros[u][1]);
        long expectedNegative = units[u] == TimeUnit.NANOSECOND ? -6 : -rawAndMicros[u][1];
        assertThat(c.getLong(1)).as("%s %s negative", units[u], zone).isEqualTo(expectedNegative);
        assertThat(c.isNullAt(2)).isTrue();
      }
    }
  }

  @Test
  void decimals() {
    DecimalVector dec = vector("p", new ArrowType.Decimal(10, 2, 128));
    dec.setSafe(0, new BigDecimal("-12345678.90"));
    dec.setNull(1);
    dec.setValueCount(2);
    LanceColumnVector c = new LanceColumnVector(dec);
    assertThat(c.dataType()).isEqualTo(DataTypes.createDecimalType(10, 2));
    assertThat(c.getDecimal(0, 10, 2).toJavaBigDecimal()).isEqualTo(new BigDecimal("-12345678.90"));
    assertThat(c.getDecimal(1, 10, 2)).isNull();
  }

  @Test
  void stringsAndBinariesOfEveryWidth() {
    VarCharVector s = vector("s", ArrowType.Utf8.INSTANCE);
    s.setSafe(0, "héllo".getBytes(StandardCharsets.UTF_8));
    s.setNull(1);
    s.setSafe(2, new byte[0]);
    s.setValueCount(3);
    LanceColumnVector sc = new LanceColumnVector(s);
    assertThat(sc.getUTF8String(0).toString()).isEqualTo("héllo");
    assertThat(sc.getUTF8String(1)).isNull();
    assertThat(sc.getUTF8String(2).toString()).isEmpty();

    LargeVarCharVector ls = vector("ls", ArrowType.LargeUtf8.INSTANCE);
    ls.setSafe(0, "first".getBytes(StandardCharsets.UTF_8));
    ls.setSafe(1, "second".getBytes(StandardCharsets.UTF_8));
    ls.setNull(2);
    ls.setValueCount(3);
    LanceColumnVector lsc = new LanceColumnVector(ls);
    assertThat(lsc.getUTF8String(0).toString()).isEqualTo("first");
    assertThat(lsc.getUTF8String(1).toString()).isEqualTo("second");
    assertThat(lsc.getUTF8String(2)).isNull();

    VarBinaryVector bin = vector("bin", ArrowType.Binary.INSTANCE);
    bin.setSafe(0, new byte[] {1, 2, 3});
    bin.setNull(1);
    bin.setValueCount(2);
    assertThat(new LanceColumnVector(bin).getBinary(0)).containsExactly(1, 2, 3);
    assertThat(new LanceColumnVector(bin).getBinary(1)).isNull();
    LargeVarBinaryVector lbin = vector("lbin", ArrowType.LargeBinary.INSTANCE);
    lbin.setSafe(0, new byte[] {9});
    lbin.setValueCount(1);
    assertThat(new LanceColumnVector(lbin).getBinary(0)).containsExactly(9);
    FixedSizeBinaryVector fixed = vector("fixed", new ArrowType.FixedSizeBinary(2));
    fixed.setSafe(0, new byte[] {7, 8});
    fixed.setNull(1);
    fixed.setValueCount(2);
    assertThat(new LanceColumnVector(fixed).getBinary(0)).containsExactly(7, 8);
    assertThat(new LanceColumnVector(fixed).getBinary(1)).isNull();
  }

  @Test
  void fixedSizeListsAreArraysOfTheirDimension() {
    FixedSizeListVector fsl =
        vector("vector", new ArrowType.FixedSizeList(3), child("item", FLOAT32));
    Float4Vector values = (Float4Vector) fsl.getDataVector();
    for (int row = 0; row < 3; row++) {
      if (row == 1) {
        fsl.setNull(row);
      } else {
        fsl.setNotNull(row);
      }
      for (int e = 0; e < 3; e++) {
        values.setSafe(row * 3 + e, row * 10 + e);
      }
    }
    fsl.setValueCount(3);
    LanceColumnVector c = new LanceColumnVector(fsl);
    assertThat(c.dataType()).isEqualTo(DataTypes.createArrayType(DataTypes.FloatType, true));
    assertThat(c.getArray(0).toFloatArray()).containsExactly(0f, 1f, 2f);
    assertThat(c.isNullAt(1)).isTrue();
    assertThat(c.getArray(2).toFloatArray()).containsExactly(20f, 21f, 22f);
    assertThat(c.getChild(0).getFloat(7)).isEqualTo(21f);
  }

  @Test
  void listsAreArraysDelimitedByTheirOffsets() {
    ListVector list =
        vector("l", ArrowType.List.INSTANCE, child("item", new ArrowType.Int(32, true)));
    IntVector items = (IntVector) list.getDataVector();
    int[][] rows = {{1, 2, 3}, null, {}, {4}};
    for (int row = 0; row < rows.length; row++) {
      if (rows[row] == null) {
        list.setNull(row);
        continue;
      }
      int start = list.startNewValue(row);
      for (int e = 0; e < rows[row].length; e++) {
        items.setSafe(start + e, rows[row][e]);
      }
      list.endValue(row, rows[row].length);
    }
    list.setValueCount(rows.length);
    LanceColumnVector c = new LanceColumnVector(list);
    assertThat(c.dataType()).isEqualTo(DataTypes.createArrayType(DataTypes.IntegerType, true));
    assertThat(c.getArray(0).toIntArray()).containsExactly(1, 2, 3);
    assertThat(c.isNullAt(1)).isTrue();
    assertThat(c.getArray(2).numElements()).isZero();
    assertThat(c.getArray(3).toIntArray()).containsExactly(4);

    LargeListVector large =
        vector("ll", ArrowType.LargeList.INSTANCE, child("item", ArrowType.Utf8.INSTANCE));
    VarCharVector strings = (VarCharVector) large.getDataVector();
    String[][] srows = {{"a"}, {"b", "c"}};
    for (int row = 0; row < srows.length; row++) {
      long start = large.startNewValue(row);
      for (int e = 0; e < srows[row].length; e++) {
        strings.setSafe((int) start + e, srows[row][e].getBytes(StandardCharsets.UTF_8));
      }
      large.endValue(row, srows[row].length);
    }
    large.setValueCount(srows.length);
    ColumnarArray second = new LanceColumnVector(large).getArray(1);
    assertThat(second.numElements()).isEqualTo(2);
    assertThat(second.getUTF8String(0).toString()).isEqualTo("b");
    assertThat(second.getUTF8String(1).toString()).isEqualTo("c");
  }

  @Test
  void structsExposeTheirFieldsAsChildren() {
    StructVector struct =
        vector(
            "point",
            ArrowType.Struct.INSTANCE,
            child("x", new ArrowType.Int(64, true)),
            child("label", ArrowType.Utf8.INSTANCE));
    BigIntVector x = (BigIntVector) struct.getChild("x");
    VarCharVector label = (VarCharVector) struct.getChild("label");
    struct.setIndexDefined(0);
    x.setSafe(0, 10);
    label.setSafe(0, "ten".getBytes(StandardCharsets.UTF_8));
    struct.setNull(1);
    struct.setIndexDefined(2);
    x.setSafe(2, 30);
    label.setNull(2);
    struct.setValueCount(3);

    LanceColumnVector c = new LanceColumnVector(struct);
    assertThat(c.dataType())
        .isEqualTo(
            new org.apache.spark.sql.types.StructType()
                .add("x", DataTypes.LongType)
                .add("label", DataTypes.StringType));
    assertThat(c.isNullAt(1)).isTrue();
    InternalRow first = c.getStruct(0);
    assertThat(first.getLong(0)).isEqualTo(10L);
    assertThat(first.getUTF8String(1).toString()).isEqualTo("ten");
    InternalRow third = c.getStruct(2);
    assertThat(third.getLong(0)).isEqualTo(30L);
    assertThat(third.isNullAt(1)).isTrue();
    assertThat(c.getChild(1).getUTF8String(0).toString()).isEqualTo("ten");
  }

  @Test
  void mapsAreReadAsTheirEntriesInStoredOrder() {
    try (org.apache.arrow.vector.complex.MapVector map =
        org.apache.arrow.vector.complex.MapVector.empty("m", allocator, false)) {
      org.apache.arrow.vector.complex.impl.UnionMapWriter w = map.getWriter();
      w.setPosition(0);
      w.startMap();
      for (int[] kv : new int[][] {{2, 20}, {1, 10}, {2, 21}}) {
        w.startEntry();
        w.key().integer().writeInt(kv[0]);
        w.value().integer().writeInt(kv[1]);
        w.endEntry();
      }
      w.endMap();
      w.setPosition(1);
      w.startMap();
      w.endMap();
      w.setValueCount(3);
      map.setNull(2);
      map.setValueCount(3);
      LanceColumnVector v = new LanceColumnVector(map);
      assertThat(v.dataType())
          .isEqualTo(
              org.apache.spark.sql.types.DataTypes.createMapType(
                  org.apache.spark.sql.types.DataTypes.IntegerType,
                  org.apache.spark.sql.types.DataTypes.IntegerType,
                  true));
      org.apache.spark.sql.vectorized.ColumnarMap first = v.getMap(0);
      assertThat(first.numElements()).isEqualTo(3);
      assertThat(first.keyArray().toIntArray()).containsExactly(2, 1, 2);
      assertThat(first.valueArray().toIntArray()).containsExactly(20, 10, 21);
      assertThat(v.getMap(1).numElements()).isZero();
      assertThat(v.isNullAt(2)).isTrue();
    }
  }
}
