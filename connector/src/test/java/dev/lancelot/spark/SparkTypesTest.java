package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.LancelotException;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/** Arrow (Lance) ↔ Spark type mapping (S1, S2), without a Spark session. */
class SparkTypesTest {
  private static Field field(String name, ArrowType type, boolean nullable, Field... children) {
    return new Field(
        name, new FieldType(nullable, type, null), children.length == 0 ? null : List.of(children));
  }

  private static DataType sparkTypeOf(ArrowType type) {
    return SparkTypes.dataType(field("c", type, true));
  }

  @Test
  void scalarTypesMapToTheirSparkTypes() {
    assertThat(sparkTypeOf(ArrowType.Bool.INSTANCE)).isEqualTo(DataTypes.BooleanType);
    assertThat(sparkTypeOf(new ArrowType.Int(8, true))).isEqualTo(DataTypes.ByteType);
    assertThat(sparkTypeOf(new ArrowType.Int(16, true))).isEqualTo(DataTypes.ShortType);
    assertThat(sparkTypeOf(new ArrowType.Int(32, true))).isEqualTo(DataTypes.IntegerType);
    assertThat(sparkTypeOf(new ArrowType.Int(64, true))).isEqualTo(DataTypes.LongType);
    assertThat(sparkTypeOf(new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)))
        .isEqualTo(DataTypes.FloatType);
    assertThat(sparkTypeOf(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)))
        .isEqualTo(DataTypes.FloatType);
    assertThat(sparkTypeOf(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)))
        .isEqualTo(DataTypes.DoubleType);
    assertThat(sparkTypeOf(ArrowType.Utf8.INSTANCE)).isEqualTo(DataTypes.StringType);
    assertThat(sparkTypeOf(ArrowType.LargeUtf8.INSTANCE)).isEqualTo(DataTypes.StringType);
    assertThat(sparkTypeOf(ArrowType.Binary.INSTANCE)).isEqualTo(DataTypes.BinaryType);
    assertThat(sparkTypeOf(ArrowType.LargeBinary.INSTANCE)).isEqualTo(DataTypes.BinaryType);
    assertThat(sparkTypeOf(new ArrowType.FixedSizeBinary(16))).isEqualTo(DataTypes.BinaryType);
    assertThat(sparkTypeOf(new ArrowType.Date(DateUnit.DAY))).isEqualTo(DataTypes.DateType);
    assertThat(sparkTypeOf(new ArrowType.Date(DateUnit.MILLISECOND))).isEqualTo(DataTypes.DateType);
    assertThat(sparkTypeOf(ArrowType.Null.INSTANCE)).isEqualTo(DataTypes.NullType);
  }

  @Test
  void unsignedIntegersWidenToTheNextSignedTypeAndUint64ToDecimal() {
    assertThat(sparkTypeOf(new ArrowType.Int(8, false))).isEqualTo(DataTypes.ShortType);
    assertThat(sparkTypeOf(new ArrowType.Int(16, false))).isEqualTo(DataTypes.IntegerType);
    assertThat(sparkTypeOf(new ArrowType.Int(32, false))).isEqualTo(DataTypes.LongType);
    assertThat(sparkTypeOf(new ArrowType.Int(64, false)))
        .isEqualTo(DataTypes.createDecimalType(20, 0));
  }

  @Test
  void rowIdAndRowAddressAreBigintsAlthoughUint64() {
    ArrowType uint64 = new ArrowType.Int(64, false);
    assertThat(SparkTypes.dataType(field("_rowid", uint64, false))).isEqualTo(DataTypes.LongType);
    assertThat(SparkTypes.dataType(field("_rowaddr", uint64, false))).isEqualTo(DataTypes.LongType);
    assertThat(SparkTypes.dataType(field("rowid", uint64, false)))
        .isEqualTo(DataTypes.createDecimalType(20, 0));
  }

  @Test
  void timestampsWithAZoneAreTimestampsAndWithoutAreTimestampNtzInEveryUnit() {
    for (TimeUnit unit : TimeUnit.values()) {
      assertThat(sparkTypeOf(new ArrowType.Timestamp(unit, "UTC")))
          .as(unit.name())
          .isEqualTo(DataTypes.TimestampType);
      assertThat(sparkTypeOf(new ArrowType.Timestamp(unit, "Europe/Paris")))
          .as(unit.name())
          .isEqualTo(DataTypes.TimestampType);
      assertThat(sparkTypeOf(new ArrowType.Timestamp(unit, null)))
          .as(unit.name())
          .isEqualTo(DataTypes.TimestampNTZType);
    }
  }

  @Test
  void decimalsKeepPrecisionAndScaleUpToSparksLimit() {
    assertThat(sparkTypeOf(new ArrowType.Decimal(10, 2, 128)))
        .isEqualTo(DataTypes.createDecimalType(10, 2));
    assertThat(sparkTypeOf(new ArrowType.Decimal(38, 38, 128)))
        .isEqualTo(DataTypes.createDecimalType(38, 38));
    assertThatThrownBy(
            () -> SparkTypes.dataType(field("price", new ArrowType.Decimal(40, 2, 256), true)))
        .isInstanceOf(LancelotException.class)
        .hasMessageContaining("Cannot map column \"price\"")
        .hasMessageContaining("Decimal(40, 2, 256)")
        .hasMessageContaining("Project the column away");
  }

  @Test
  void fixedSizeListIsAnArrayMarkedWithItsDimension() {
    Field vector =
        field(
            "vector",
            new ArrowType.FixedSizeList(128),
            true,
            field("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE), false));
    StructField f = SparkTypes.toSpark(vector);
    assertThat(f.name()).isEqualTo("vector");
    assertThat(f.nullable()).isTrue();
    assertThat(f.dataType()).isEqualTo(DataTypes.createArrayType(DataTypes.FloatType, false));
    assertThat(f.metadata().getLong(SparkTypes.FIXED_SIZE_LIST_SIZE)).isEqualTo(128L);
  }

  @Test
  void listsAndLargeListsAreArraysWithoutADimension() {
    Field list =
        field("tags", ArrowType.List.INSTANCE, false, field("item", ArrowType.Utf8.INSTANCE, true));
    Field large =
        field(
            "ids",
            ArrowType.LargeList.INSTANCE,
            true,
            field("item", new ArrowType.Int(64, true), false));
    StructField l = SparkTypes.toSpark(list);
    assertThat(l.dataType()).isEqualTo(DataTypes.createArrayType(DataTypes.StringType, true));
    assertThat(l.nullable()).isFalse();
    assertThat(l.metadata().contains(SparkTypes.FIXED_SIZE_LIST_SIZE)).isFalse();
    assertThat(SparkTypes.toSpark(large).dataType())
        .isEqualTo(DataTypes.createArrayType(DataTypes.LongType, false));
  }

  @Test
  void nestedStructsAndListsMapRecursively() {
    Field point =
        field(
            "point",
            ArrowType.Struct.INSTANCE,
            true,
            field("x", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE), false),
            field(
                "emb",
                new ArrowType.FixedSizeList(3),
                true,
                field("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE), true)),
            field(
                "labels",
                ArrowType.List.INSTANCE,
                true,
                field(
                    "item",
                    ArrowType.Struct.INSTANCE,
                    true,
                    field("k", ArrowType.Utf8.INSTANCE, false),
                    field("ts", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null), true))));
    StructType struct = (StructType) SparkTypes.toSpark(point).dataType();

    assertThat(struct.fieldNames()).containsExactly("x", "emb", "labels");
    assertThat(struct.apply("x").dataType()).isEqualTo(DataTypes.DoubleType);
    assertThat(struct.apply("x").nullable()).isFalse();
    assertThat(struct.apply("emb").dataType())
        .isEqualTo(DataTypes.createArrayType(DataTypes.FloatType, true));
    assertThat(struct.apply("emb").metadata().getLong(SparkTypes.FIXED_SIZE_LIST_SIZE))
        .isEqualTo(3L);
    ArrayType labels = (ArrayType) struct.apply("labels").dataType();
    assertThat(labels.elementType())
        .isEqualTo(
            new StructType()
                .add("k", DataTypes.StringType, false)
                .add("ts", DataTypes.TimestampNTZType, true));
  }

  @Test
  void aWholeSchemaKeepsOrderNamesAndNullability() {
    Schema schema =
        new Schema(
            List.of(
                field("id", new ArrowType.Int(64, true), false),
                field("name", ArrowType.Utf8.INSTANCE, true)));
    assertThat(SparkTypes.toSpark(schema))
        .isEqualTo(
            new StructType()
                .add("id", DataTypes.LongType, false)
                .add("name", DataTypes.StringType, true));
  }

  @Test
  void unsupportedArrowTypesAreRefusedNamingTheColumn() {
    Field duration = field("elapsed", new ArrowType.Duration(TimeUnit.MILLISECOND), true);
    assertThatThrownBy(() -> SparkTypes.dataType(duration))
        .isInstanceOf(LancelotException.class)
        .hasMessageStartingWith(
            "Cannot map column \"elapsed\" of Arrow type Duration(MILLISECOND) to a Spark type");
    assertThatThrownBy(
            () ->
                SparkTypes.dataType(field("t", new ArrowType.Time(TimeUnit.MICROSECOND, 64), true)))
        .isInstanceOf(LancelotException.class)
        .hasMessageContaining("\"t\"")
        .hasMessageContaining("not supported by the connector");
  }

  @Test
  void mapsBecomeSparkMaps() {
    Field map =
        field(
            "attrs",
            new ArrowType.Map(false),
            true,
            field(
                "entries",
                ArrowType.Struct.INSTANCE,
                false,
                field("key", ArrowType.Utf8.INSTANCE, false),
                field("value", new ArrowType.Int(32, true), true)));
    assertThat(SparkTypes.dataType(map))
        .isEqualTo(DataTypes.createMapType(DataTypes.StringType, DataTypes.IntegerType, true));
  }

  @Test
  void sparkScalarTypesMapToArrow() {
    assertThat(SparkTypes.arrowType("c", DataTypes.BooleanType)).isEqualTo(ArrowType.Bool.INSTANCE);
    assertThat(SparkTypes.arrowType("c", DataTypes.ByteType)).isEqualTo(new ArrowType.Int(8, true));
    assertThat(SparkTypes.arrowType("c", DataTypes.ShortType))
        .isEqualTo(new ArrowType.Int(16, true));
    assertThat(SparkTypes.arrowType("c", DataTypes.IntegerType))
        .isEqualTo(new ArrowType.Int(32, true));
    assertThat(SparkTypes.arrowType("c", DataTypes.LongType))
        .isEqualTo(new ArrowType.Int(64, true));
    assertThat(SparkTypes.arrowType("c", DataTypes.FloatType))
        .isEqualTo(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));
    assertThat(SparkTypes.arrowType("c", DataTypes.DoubleType))
        .isEqualTo(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE));
    assertThat(SparkTypes.arrowType("c", DataTypes.StringType)).isEqualTo(ArrowType.Utf8.INSTANCE);
    assertThat(SparkTypes.arrowType("c", DataTypes.BinaryType))
        .isEqualTo(ArrowType.Binary.INSTANCE);
    assertThat(SparkTypes.arrowType("c", DataTypes.DateType))
        .isEqualTo(new ArrowType.Date(DateUnit.DAY));
    assertThat(SparkTypes.arrowType("c", DataTypes.TimestampType))
        .isEqualTo(new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"));
    assertThat(SparkTypes.arrowType("c", DataTypes.TimestampNTZType))
        .isEqualTo(new ArrowType.Timestamp(TimeUnit.MICROSECOND, null));
    assertThat(SparkTypes.arrowType("c", DataTypes.createDecimalType(12, 3)))
        .isEqualTo(new ArrowType.Decimal(12, 3, 128));
  }

  @Test
  void anArrayBecomesAVectorByMetadataOrByTheVectorColumnsOptionAndAListOtherwise() {
    Metadata dim4 = new MetadataBuilder().putLong(SparkTypes.FIXED_SIZE_LIST_SIZE, 4).build();
    StructType spark =
        new StructType()
            .add("by_metadata", DataTypes.createArrayType(DataTypes.FloatType, false), true, dim4)
            .add("by_option", DataTypes.createArrayType(DataTypes.DoubleType, false), false)
            .add("plain", DataTypes.createArrayType(DataTypes.IntegerType, true), true);
    Schema arrow = SparkTypes.toArrow(spark, Map.of("by_option", 8));

    Field byMetadata = arrow.findField("by_metadata");
    assertThat(byMetadata.getType()).isEqualTo(new ArrowType.FixedSizeList(4));
    assertThat(byMetadata.getChildren().get(0).getType())
        .isEqualTo(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));
    assertThat(byMetadata.getChildren().get(0).isNullable()).isFalse();
    Field byOption = arrow.findField("by_option");
    assertThat(byOption.getType()).isEqualTo(new ArrowType.FixedSizeList(8));
    assertThat(byOption.isNullable()).isFalse();
    Field plain = arrow.findField("plain");
    assertThat(plain.getType()).isEqualTo(ArrowType.List.INSTANCE);
    assertThat(plain.getChildren().get(0).getType()).isEqualTo(new ArrowType.Int(32, true));
    assertThat(plain.getChildren().get(0).isNullable()).isTrue();
  }

  @Test
  void theOptionsDimensionWinsOverTheMetadatas() {
    Metadata dim4 = new MetadataBuilder().putLong(SparkTypes.FIXED_SIZE_LIST_SIZE, 4).build();
    StructType spark =
        new StructType().add("v", DataTypes.createArrayType(DataTypes.FloatType), true, dim4);
    assertThat(SparkTypes.toArrow(spark, Map.of("v", 16)).findField("v").getType())
        .isEqualTo(new ArrowType.FixedSizeList(16));
  }

  @Test
  void sparkSchemasRoundTripThroughArrow() {
    Metadata dim3 = new MetadataBuilder().putLong(SparkTypes.FIXED_SIZE_LIST_SIZE, 3).build();
    StructType nested =
        new StructType()
            .add("a", DataTypes.IntegerType, false)
            .add("emb", DataTypes.createArrayType(DataTypes.FloatType, false), true, dim3)
            .add("tags", DataTypes.createArrayType(DataTypes.StringType, true), true);
    StructType spark =
        new StructType()
            .add("b", DataTypes.BooleanType, true)
            .add("i8", DataTypes.ByteType, true)
            .add("i16", DataTypes.ShortType, true)
            .add("i32", DataTypes.IntegerType, false)
            .add("i64", DataTypes.LongType, true)
            .add("f", DataTypes.FloatType, true)
            .add("d", DataTypes.DoubleType, true)
            .add("s", DataTypes.StringType, true)
            .add("bin", DataTypes.BinaryType, true)
            .add("day", DataTypes.DateType, true)
            .add("ts", DataTypes.TimestampType, true)
            .add("ts_ntz", DataTypes.TimestampNTZType, true)
            .add("dec", DataTypes.createDecimalType(20, 4), true)
            .add("vector", DataTypes.createArrayType(DataTypes.FloatType, false), false, dim3)
            .add("nested", nested, true)
            .add(
                "list_of_structs",
                DataTypes.createArrayType(new StructType().add("x", DataTypes.LongType)),
                true);

    assertThat(SparkTypes.toSpark(SparkTypes.toArrow(spark, Map.of()))).isEqualTo(spark);
  }

  @Test
  void unsupportedSparkTypesAreRefusedNamingTheColumnAndWhatToDo() {
    StructType withMap =
        new StructType()
            .add("attrs", DataTypes.createMapType(DataTypes.StringType, DataTypes.StringType));
    assertThatThrownBy(() -> SparkTypes.toArrow(withMap, Map.of()))
        .isInstanceOf(LancelotException.class)
        .hasMessageStartingWith(
            "Cannot write column \"attrs\" of Spark type map<string,string> to Lance")
        .hasMessageContaining("Cast it to a supported type");
    StructType nestedInterval =
        new StructType().add("s", new StructType().add("every", DataTypes.CalendarIntervalType));
    assertThatThrownBy(() -> SparkTypes.toArrow(nestedInterval, Map.of()))
        .isInstanceOf(LancelotException.class)
        .hasMessageContaining("column \"every\" of Spark type interval");
  }
}
