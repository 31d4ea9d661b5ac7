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
        new Schema(List.of(new Field("u", FieldType.nullable(new ArrowType.Int(32, false)), null)));
    assertThatThrownBy(() -> new RowToArrow(schema, allocator, "task 0"))
        .isInstanceOf(LancelotException.class)
        .hasMessage(
            "Cannot write column \"u\": Arrow vector type UInt4Vector is not supported by the connector's "
                + "writer.");
  }
}
