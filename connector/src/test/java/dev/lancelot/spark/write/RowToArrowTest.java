package dev.lancelot.spark.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.LancelotException;
import dev.lancelot.spark.SparkTypes;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.JsonStringArrayList;
import org.apache.arrow.vector.util.Text;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Spark rows (Catalyst's internal values) appended to Arrow batches, for every type the writer
 * supports (S2).
 */
class RowToArrowTest {
  private final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void close() {
    allocator.close();
  }

  private static InternalRow row(Object... values) {
    return new GenericInternalRow(values);
  }

  private static GenericArrayData array(Object... values) {
    return new GenericArrayData(values);
  }

  private static UTF8String s(String value) {
    return UTF8String.fromString(value);
  }

  private static List<Object> column(VectorSchemaRoot root, String name) {
    FieldVector v = root.getVector(name);
    Object[] out = new Object[root.getRowCount()];
    for (int i = 0; i < out.length; i++) {
      Object o = v.getObject(i);
      out[i] = o instanceof Text t ? t.toString() : o;
    }
    return Arrays.asList(out);
  }

  @Test
  void everyScalarTypeAndNull() {
    StructType spark =
        new StructType()
            .add("b", DataTypes.BooleanType)
            .add("i8", DataTypes.ByteType)
            .add("i16", DataTypes.ShortType)
            .add("i32", DataTypes.IntegerType)
            .add("i64", DataTypes.LongType)
            .add("f", DataTypes.FloatType)
            .add("d", DataTypes.DoubleType)
            .add("s", DataTypes.StringType)
            .add("bin", DataTypes.BinaryType)
            .add("day", DataTypes.DateType)
            .add("ts", DataTypes.TimestampType)
            .add("ntz", DataTypes.TimestampNTZType)
            .add("dec", DataTypes.createDecimalType(10, 2));
    int day = (int) LocalDate.of(2026, 12, 3).toEpochDay();
    long micros = 1_780_000_000_123_456L;
    try (RowToArrow rows =
        new RowToArrow(SparkTypes.toArrow(spark, Map.of()), allocator, "task 1")) {
      rows.append(
          row(
              true,
              (byte) -1,
              (short) 300,
              70_000,
              1L << 40,
              1.5f,
              -2.25,
              s("héllo"),
              new byte[] {1, 2},
              day,
              micros,
              micros + 1,
              Decimal.apply(new BigDecimal("12.5"))));
      rows.append(row(new Object[13]));
      assertThat(rows.rows()).isEqualTo(2);
      VectorSchemaRoot root = rows.finishBatch();

      assertThat(root.getRowCount()).isEqualTo(2);
      assertThat(column(root, "b")).containsExactly(true, null);
      assertThat(column(root, "i8")).containsExactly((byte) -1, null);
      assertThat(column(root, "i16")).containsExactly((short) 300, null);
      assertThat(column(root, "i32")).containsExactly(70_000, null);
      assertThat(column(root, "i64")).containsExactly(1L << 40, null);
      assertThat(column(root, "f")).containsExactly(1.5f, null);
      assertThat(column(root, "d")).containsExactly(-2.25, null);
      assertThat(column(root, "s")).containsExactly("héllo", null);
      assertThat((byte[]) column(root, "bin").get(0)).containsExactly(1, 2);
      assertThat(column(root, "bin").get(1)).isNull();
      assertThat(column(root, "day")).containsExactly(day, null);
      assertThat(root.getVector("ts").getField().getType())
          .isEqualTo(
              new ArrowType.Timestamp(org.apache.arrow.vector.types.TimeUnit.MICROSECOND, "UTC"));
      assertThat(((org.apache.arrow.vector.TimeStampVector) root.getVector("ts")).get(0))
          .isEqualTo(micros);
      assertThat(root.getVector("ts").isNull(1)).isTrue();
      assertThat(column(root, "ntz"))
          .containsExactly(LocalDateTime.of(2026, 5, 28, 20, 26, 40, 123_457_000), null);
      assertThat(column(root, "dec")).containsExactly(new BigDecimal("12.50"), null);
    }
  }

  @Test
  void vectorsListsAndStructs() {
    StructType spark =
        new StructType()
            .add(
                "vector",
                DataTypes.createArrayType(DataTypes.FloatType, false),
                true,
                new MetadataBuilder().putLong(SparkTypes.FIXED_SIZE_LIST_SIZE, 3).build())
            .add("tags", DataTypes.createArrayType(DataTypes.StringType, true))
            .add(
                "point",
                new StructType()
                    .add("x", DataTypes.LongType)
                    .add("ys", DataTypes.createArrayType(DataTypes.IntegerType)));
    try (RowToArrow rows =
        new RowToArrow(SparkTypes.toArrow(spark, Map.of()), allocator, "task 2")) {
      rows.append(row(array(1f, 2f, 3f), array(s("a"), null), row(5L, array(1, 2))));
      rows.append(row(null, null, null));
      rows.append(row(array(4f, 5f, 6f), array(), row(null, null)));
      rows.append(row(array(7f, 8f, 9f), array(s("b"), s("c")), row(6L, array())));
      VectorSchemaRoot root = rows.finishBatch();

      assertThat(column(root, "vector"))
          .containsExactly(List.of(1f, 2f, 3f), null, List.of(4f, 5f, 6f), List.of(7f, 8f, 9f));
      assertThat(column(root, "tags").get(0)).isEqualTo(Arrays.asList(new Text("a"), null));
      assertThat(column(root, "tags").get(1)).isNull();
      assertThat(column(root, "tags").get(2)).isEqualTo(new JsonStringArrayList<>());
      assertThat(column(root, "tags").get(3)).isEqualTo(List.of(new Text("b"), new Text("c")));
      assertThat(root.getVector("point").getObject(0)).hasToString("{\"x\":5,\"ys\":[1,2]}");
      assertThat(root.getVector("point").isNull(1)).isTrue();
      assertThat(root.getVector("point").getObject(2)).hasToString("{}");
      assertThat(root.getVector("point").getObject(3)).hasToString("{\"x\":6,\"ys\":[]}");
    }
  }

  @Test
  void aResetBatchStartsEmptyAndRowNumbersInErrorsKeepCounting() {
    StructType spark = new StructType().add("id", DataTypes.LongType, false);
    try (RowToArrow rows =
        new RowToArrow(SparkTypes.toArrow(spark, Map.of()), allocator, "task 4 (stage 1)")) {
      rows.append(row(1L));
      rows.append(row(2L));
      assertThat(column(rows.finishBatch(), "id")).containsExactly(1L, 2L);
      rows.reset();
      assertThat(rows.rows()).isZero();
      rows.append(row(3L));
      assertThat(column(rows.finishBatch(), "id")).containsExactly(3L);
      assertThatThrownBy(() -> rows.append(row((Object) null)))
          .isInstanceOf(LancelotException.class)
          .hasMessage(
              "Cannot write task 4 (stage 1) row 3: column \"id\" is null but the dataset declares it not "
                  + "nullable.");
    }
  }

  @Test
  void aVectorOfTheWrongDimensionIsRefusedNamingRowAndColumn() {
    StructType spark =
        new StructType().add("emb", DataTypes.createArrayType(DataTypes.FloatType, false));
    try (RowToArrow rows =
        new RowToArrow(SparkTypes.toArrow(spark, Map.of("emb", 3)), allocator, "task 7")) {
      rows.append(row(array(1f, 2f, 3f)));
      assertThatThrownBy(() -> rows.append(row(array(1f, 2f))))
          .isInstanceOf(LancelotException.class)
          .hasMessage(
              "Cannot write task 7 row 1: column \"emb\" is a vector of dimension 3 but the row's array has 2 "
                  + "elements. Every vector must have exactly 3 elements.");
    }
  }

  @Test
  void aNullElementInAVectorWithoutNullsIsRefused() {
    StructType spark =
        new StructType().add("emb", DataTypes.createArrayType(DataTypes.FloatType, false));
    try (RowToArrow rows =
        new RowToArrow(SparkTypes.toArrow(spark, Map.of("emb", 2)), allocator, "task 0")) {
      assertThatThrownBy(() -> rows.append(row(array(1f, null))))
          .isInstanceOf(LancelotException.class)
          .hasMessageContaining(
              "column \"emb.item\" is null but the dataset declares it not nullable");
    }
  }

  @Test
  void arrowTypesTheWriterDoesNotWriteAreRefusedNamingTheColumn() {
    Schema schema =
        new Schema(
            List.of(
                new Field(
                    "d",
                    FieldType.nullable(
                        new ArrowType.Duration(org.apache.arrow.vector.types.TimeUnit.SECOND)),
                    null)));
    assertThatThrownBy(() -> new RowToArrow(schema, allocator, "task 0"))
        .isInstanceOf(LancelotException.class)
        .hasMessage(
            "Cannot write column \"d\": Arrow vector type DurationVector is not supported by the "
                + "connector's writer.");
  }

  private static Field field(String name, ArrowType type, Field... children) {
    return new Field(name, FieldType.nullable(type), List.of(children));
  }

  /** The schema of a dataset Lance wrote with types Spark has no exact type for. */
  static Schema datasetOwnTypes() {
    org.apache.arrow.vector.types.TimeUnit s = org.apache.arrow.vector.types.TimeUnit.SECOND;
    org.apache.arrow.vector.types.TimeUnit ms = org.apache.arrow.vector.types.TimeUnit.MILLISECOND;
    org.apache.arrow.vector.types.TimeUnit ns = org.apache.arrow.vector.types.TimeUnit.NANOSECOND;
    return new Schema(
        List.of(
            field("u8", new ArrowType.Int(8, false)),
            field("u16", new ArrowType.Int(16, false)),
            field("u32", new ArrowType.Int(32, false)),
            field("u64", new ArrowType.Int(64, false)),
            field(
                "f16",
                new ArrowType.FloatingPoint(
                    org.apache.arrow.vector.types.FloatingPointPrecision.HALF)),
            field("ls", ArrowType.LargeUtf8.INSTANCE),
            field("lb", ArrowType.LargeBinary.INSTANCE),
            field("fsb", new ArrowType.FixedSizeBinary(4)),
            field("ll", ArrowType.LargeList.INSTANCE, field("item", new ArrowType.Int(64, true))),
            field("ts_s", new ArrowType.Timestamp(s, "UTC")),
            field("ts_ms", new ArrowType.Timestamp(ms, "Europe/Paris")),
            field("ts_ns", new ArrowType.Timestamp(ns, null)),
            field("d64", new ArrowType.Date(org.apache.arrow.vector.types.DateUnit.MILLISECOND)),
            field("dec", new ArrowType.Decimal(20, 3, 256)),
            field(
                "st",
                ArrowType.Struct.INSTANCE,
                field("a", new ArrowType.Int(16, false)),
                field(
                    "b",
                    ArrowType.LargeList.INSTANCE,
                    field("item", ArrowType.LargeUtf8.INSTANCE)))));
  }

  @Test
  void sparkValuesAreWrittenInTheDatasetsOwnTypes() {
    Schema schema = datasetOwnTypes();
    long micros = 1_780_000_000_123_456L; // 2026-05-28T20:26:40.123456Z
    int day = (int) LocalDate.of(2026, 12, 3).toEpochDay();
    try (RowToArrow rows = new RowToArrow(schema, allocator, "task 3")) {
      rows.append(
          row(
              (short) 255,
              65_535,
              4_294_967_295L,
              Decimal.apply(new BigDecimal("18446744073709551615")),
              1.5f,
              s("large é"),
              new byte[] {9, 8, 7},
              new byte[] {1, 2, 3, 4},
              array(1L, null, 3L),
              micros,
              micros,
              micros,
              day,
              Decimal.apply(new BigDecimal("12345678901234567.125")),
              row(7, array(s("x"), null))));
      rows.append(row(new Object[15]));
      rows.append(
          row(
              (short) 0,
              0,
              0L,
              Decimal.apply(BigDecimal.ZERO),
              -0.1f,
              s(""),
              new byte[0],
              new byte[4],
              array(),
              -1L,
              -1L,
              -1L,
              -1,
              Decimal.apply(new BigDecimal("-0.5")),
              row(null, array())));
      VectorSchemaRoot root = rows.finishBatch();

      assertThat(root.getSchema()).isEqualTo(schema);
      assertThat(column(root, "u8")).containsExactly((byte) -1, null, (byte) 0);
      assertThat(
              ((org.apache.arrow.vector.UInt1Vector) root.getVector("u8")).getObjectNoOverflow(0))
          .isEqualTo((short) 255);
      assertThat(column(root, "u16")).containsExactly((char) 65_535, null, (char) 0);
      assertThat(
              ((org.apache.arrow.vector.UInt4Vector) root.getVector("u32")).getObjectNoOverflow(0))
          .isEqualTo(4_294_967_295L);
      assertThat(
              ((org.apache.arrow.vector.UInt8Vector) root.getVector("u64")).getObjectNoOverflow(0))
          .isEqualTo(new java.math.BigInteger("18446744073709551615"));
      org.apache.arrow.vector.Float2Vector f16 =
          (org.apache.arrow.vector.Float2Vector) root.getVector("f16");
      assertThat(f16.getValueAsFloat(0)).isEqualTo(1.5f);
      assertThat(f16.isNull(1)).isTrue();
      assertThat(f16.getValueAsFloat(2)).isEqualTo(-0.099975586f);
      assertThat(column(root, "ls")).containsExactly("large é", null, "");
      assertThat((byte[]) column(root, "lb").get(0)).containsExactly(9, 8, 7);
      assertThat((byte[]) column(root, "fsb").get(0)).containsExactly(1, 2, 3, 4);
      assertThat(column(root, "fsb").get(1)).isNull();
      assertThat(column(root, "ll")).containsExactly(Arrays.asList(1L, null, 3L), null, List.of());
      org.apache.arrow.vector.TimeStampVector tsS =
          (org.apache.arrow.vector.TimeStampVector) root.getVector("ts_s");
      org.apache.arrow.vector.TimeStampVector tsMs =
          (org.apache.arrow.vector.TimeStampVector) root.getVector("ts_ms");
      org.apache.arrow.vector.TimeStampVector tsNs =
          (org.apache.arrow.vector.TimeStampVector) root.getVector("ts_ns");
      assertThat(List.of(tsS.get(0), tsMs.get(0), tsNs.get(0)))
          .containsExactly(1_780_000_000L, 1_780_000_000_123L, micros * 1000);
      // one microsecond before the epoch: floor in the coarser units
      assertThat(List.of(tsS.get(2), tsMs.get(2), tsNs.get(2))).containsExactly(-1L, -1L, -1000L);
      assertThat(tsS.isNull(1)).isTrue();
      org.apache.arrow.vector.DateMilliVector d64 =
          (org.apache.arrow.vector.DateMilliVector) root.getVector("d64");
      assertThat(d64.get(0)).isEqualTo(day * 86_400_000L);
      assertThat(d64.get(2)).isEqualTo(-86_400_000L);
      assertThat(column(root, "dec"))
          .containsExactly(new BigDecimal("12345678901234567.125"), null, new BigDecimal("-0.500"));
      org.apache.arrow.vector.complex.StructVector st =
          (org.apache.arrow.vector.complex.StructVector) root.getVector("st");
      assertThat((int) ((org.apache.arrow.vector.UInt2Vector) st.getChild("a")).get(0))
          .isEqualTo(7);
      assertThat(st.getChild("b").getObject(0)).isEqualTo(Arrays.asList(new Text("x"), null));
      assertThat(root.getVector("st").getObject(2)).hasToString("{\"b\":[]}");
    }
  }

  @Test
  void vectorsOfUnsignedBytesAndHalfFloatsTakeTheirItemsTypes() {
    Schema schema =
        new Schema(
            List.of(
                field(
                    "codes",
                    new ArrowType.FixedSizeList(2),
                    field("item", new ArrowType.Int(8, false))),
                field(
                    "half",
                    new ArrowType.FixedSizeList(2),
                    field(
                        "item",
                        new ArrowType.FloatingPoint(
                            org.apache.arrow.vector.types.FloatingPointPrecision.HALF)))));
    try (RowToArrow rows = new RowToArrow(schema, allocator, "task 5")) {
      rows.append(row(array((short) 0, (short) 255), array(0.5f, -2f)));
      VectorSchemaRoot root = rows.finishBatch();
      org.apache.arrow.vector.complex.FixedSizeListVector codes =
          (org.apache.arrow.vector.complex.FixedSizeListVector) root.getVector("codes");
      org.apache.arrow.vector.UInt1Vector items =
          (org.apache.arrow.vector.UInt1Vector) codes.getDataVector();
      assertThat(List.of(items.getObjectNoOverflow(0), items.getObjectNoOverflow(1)))
          .containsExactly((short) 0, (short) 255);
      org.apache.arrow.vector.Float2Vector half =
          (org.apache.arrow.vector.Float2Vector)
              ((org.apache.arrow.vector.complex.FixedSizeListVector) root.getVector("half"))
                  .getDataVector();
      assertThat(List.of(half.getValueAsFloat(0), half.getValueAsFloat(1)))
          .containsExactly(0.5f, -2f);
      assertThatThrownBy(() -> rows.append(row(array((short) 1, (short) 256), array(0f, 0f))))
          .hasMessage(
              "Cannot write task 5 row 1: value 256 does not fit column \"codes.item\": the dataset "
                  + "stores it as uint8, which holds 0 to 255.");
    }
  }

  @Test
  void valuesTheDatasetsTypeCannotHoldAreRefusedNamingRowColumnAndValue() {
    Schema schema = datasetOwnTypes();
    Object[] good = {
      (short) 1,
      1,
      1L,
      Decimal.apply(BigDecimal.ONE),
      1f,
      s("a"),
      new byte[1],
      new byte[4],
      array(),
      0L,
      0L,
      0L,
      0,
      Decimal.apply(BigDecimal.ONE),
      row(1, array())
    };
    Object[][] bad = {
      {0, (short) 256, "value 256 does not fit column \"u8\""},
      {1, -1, "value -1 does not fit column \"u16\": the dataset stores it as uint16"},
      {1, 70_000, "value 70000 does not fit column \"u16\""},
      {2, -1L, "value -1 does not fit column \"u32\""},
      {3, Decimal.apply(new BigDecimal("18446744073709551616")), "column \"u64\""},
      {4, 1e6f, "value 1000000.0 does not fit column \"f16\""},
      {7, new byte[3], "value of 3 bytes does not fit column \"fsb\""},
      {11, Long.MAX_VALUE, "does not fit column \"ts_ns\""},
      {14, row(-2, array()), "value -2 does not fit column \"st.a\""},
    };
    try (RowToArrow rows = new RowToArrow(schema, allocator, "task 9")) {
      rows.append(row(good.clone()));
      for (Object[] b : bad) {
        Object[] values = good.clone();
        values[(Integer) b[0]] = b[1];
        assertThatThrownBy(() -> rows.append(row(values)))
            .isInstanceOf(dev.lancelot.engine.InvalidInputException.class)
            .hasMessageStartingWith("Cannot write task 9 row ")
            .hasMessageContaining((String) b[2]);
      }
    }
  }
}
