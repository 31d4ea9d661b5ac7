package dev.lancelot.spark;

import dev.lancelot.engine.InvalidInputException;
import java.util.ArrayList;
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
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

/**
 * Arrow (Lance) types to Spark types and back (S1, S2).
 *
 * <pre>
 * bool → boolean            int8/16/32/64 → byte/short/int/long
 * uint8/16/32 → short/int/long (widened)    uint64 → decimal(20,0); _rowid/_rowaddr → long
 * float16/32 → float        float64 → double        decimal(p,s) → decimal(p,s)
 * utf8, large_utf8 → string binary, large_binary, fixed_size_binary → binary
 * date32/64 → date          timestamp with zone → timestamp; without → timestamp_ntz
 * fixed_size_list&lt;T, d&gt; → array&lt;T&gt; with metadata arrow.fixed-size-list.size = d
 * list, large_list → array  struct → struct
 * </pre>
 *
 * <p>Writes into an existing dataset convert the Spark values back into the dataset's own types
 * (unsigned, half float, large, fixed-size, date64, other timestamp units, decimal256), with range
 * checks: {@code RowToArrow} and {@code DatasetTypes} (D39).
 */
public final class SparkTypes {
  /** Field metadata key marking a Spark array as a fixed-size list (Lance vector) of that size. */
  public static final String FIXED_SIZE_LIST_SIZE = "arrow.fixed-size-list.size";

  /**
   * Suffix of lance-spark's option and table property {@code '<column>.lance.encoding' = 'blob'},
   * which makes a {@code binary} column a Lance blob column.
   */
  public static final String BLOB_ENCODING = "lance.encoding";

  /** Field metadata marking a Lance blob column ({@code "true"}), in Arrow and Spark schemas. */
  public static final String BLOB_KEY = dev.lancelot.engine.schema.LanceField.BLOB_KEY;

  private SparkTypes() {}

  public static StructType toSpark(Schema schema) {
    List<StructField> fields = new ArrayList<>();
    for (Field f : schema.getFields()) {
      fields.add(toSpark(f));
    }
    return new StructType(fields.toArray(new StructField[0]));
  }

  public static StructField toSpark(Field field) {
    Metadata metadata = Metadata.empty();
    if (field.getType() instanceof ArrowType.FixedSizeList fsl) {
      metadata = new MetadataBuilder().putLong(FIXED_SIZE_LIST_SIZE, fsl.getListSize()).build();
    }
    return new StructField(field.getName(), dataType(field), field.isNullable(), metadata);
  }

  public static DataType dataType(Field field) {
    ArrowType t = field.getType();
    if (t instanceof ArrowType.Bool) {
      return DataTypes.BooleanType;
    } else if (t instanceof ArrowType.Int i) {
      if (i.getIsSigned()) {
        return switch (i.getBitWidth()) {
          case 8 -> DataTypes.ByteType;
          case 16 -> DataTypes.ShortType;
          case 32 -> DataTypes.IntegerType;
          default -> DataTypes.LongType;
        };
      }
      if (isRowIdColumn(field.getName())) {
        return DataTypes.LongType;
      }
      return switch (i.getBitWidth()) {
        case 8 -> DataTypes.ShortType;
        case 16 -> DataTypes.IntegerType;
        case 32 -> DataTypes.LongType;
        default -> DataTypes.createDecimalType(20, 0);
      };
    } else if (t instanceof ArrowType.FloatingPoint fp) {
      return fp.getPrecision() == FloatingPointPrecision.DOUBLE
          ? DataTypes.DoubleType
          : DataTypes.FloatType;
    } else if (t instanceof ArrowType.Utf8 || t instanceof ArrowType.LargeUtf8) {
      return DataTypes.StringType;
    } else if (t instanceof ArrowType.Binary
        || t instanceof ArrowType.LargeBinary
        || t instanceof ArrowType.FixedSizeBinary) {
      return DataTypes.BinaryType;
    } else if (t instanceof ArrowType.Date) {
      return DataTypes.DateType;
    } else if (t instanceof ArrowType.Timestamp ts) {
      return ts.getTimezone() == null ? DataTypes.TimestampNTZType : DataTypes.TimestampType;
    } else if (t instanceof ArrowType.Decimal d && d.getPrecision() <= 38) {
      return DataTypes.createDecimalType(d.getPrecision(), d.getScale());
    } else if (t instanceof ArrowType.FixedSizeList
        || t instanceof ArrowType.List
        || t instanceof ArrowType.LargeList) {
      Field child = field.getChildren().get(0);
      return DataTypes.createArrayType(dataType(child), child.isNullable());
    } else if (t instanceof ArrowType.Map) {
      // one non-null entries struct {key, value}, stored like a list of structs
      Field entries = field.getChildren().get(0);
      Field value = entries.getChildren().get(1);
      return DataTypes.createMapType(
          dataType(entries.getChildren().get(0)), dataType(value), value.isNullable());
    } else if (t instanceof ArrowType.Struct) {
      List<StructField> children = new ArrayList<>();
      for (Field c : field.getChildren()) {
        children.add(toSpark(c));
      }
      return new StructType(children.toArray(new StructField[0]));
    } else if (t instanceof ArrowType.Null) {
      return DataTypes.NullType;
    }
    throw new InvalidInputException(
        "Cannot map column \""
            + field.getName()
            + "\" of Arrow type "
            + t
            + " to a Spark type: the type is not supported by the connector. Project the column away to read the rest.");
  }

  static boolean isRowIdColumn(String name) {
    return name.equals("_rowid") || name.equals("_rowaddr");
  }

  /**
   * Arrow schema for writing a Spark schema. An {@code array<T>} becomes a fixed-size list (a Lance
   * vector) when its metadata carries {@value #FIXED_SIZE_LIST_SIZE} or {@code vectorDims} names
   * it; other arrays stay lists.
   */
  public static Schema toArrow(StructType schema, Map<String, Integer> vectorDims) {
    return toArrow(schema, vectorDims, java.util.Set.of());
  }

  /**
   * As {@link #toArrow(StructType, Map)}; a top-level {@code binary} column becomes a Lance blob
   * column ({@code large_binary} with {@code lance-encoding:blob = true}) when {@code blobColumns}
   * names it or its metadata has {@code lance-encoding:blob = true}. Naming a column that is not a
   * top-level {@code binary} column is refused.
   */
  public static Schema toArrow(
      StructType schema, Map<String, Integer> vectorDims, java.util.Set<String> blobColumns) {
    for (String b : blobColumns) {
      java.util.Optional<StructField> f =
          java.util.Arrays.stream(schema.fields()).filter(x -> x.name().equals(b)).findFirst();
      if (f.isEmpty() || !(f.get().dataType() instanceof BinaryType)) {
        throw new dev.lancelot.engine.InvalidInputException(
            "Cannot make \""
                + b
                + "\" a blob column ("
                + b
                + "."
                + BLOB_ENCODING
                + " = 'blob'): "
                + (f.isEmpty()
                    ? "the data has no such column"
                    : "it has type " + f.get().dataType().sql() + ", not BINARY")
                + ". Columns: "
                + java.util.Arrays.toString(schema.fieldNames()));
      }
    }
    List<Field> fields = new ArrayList<>();
    for (StructField f : schema.fields()) {
      boolean blob =
          f.dataType() instanceof BinaryType
              && (blobColumns.contains(f.name())
                  || (f.metadata().contains(BLOB_KEY)
                      && "true".equalsIgnoreCase(f.metadata().getString(BLOB_KEY))));
      fields.add(
          blob
              ? new Field(
                  f.name(),
                  new FieldType(
                      f.nullable(), ArrowType.LargeBinary.INSTANCE, null, Map.of(BLOB_KEY, "true")),
                  null)
              : toArrow(f, vectorDims.get(f.name())));
    }
    return new Schema(fields);
  }

  static Field toArrow(StructField f, Integer vectorDim) {
    DataType t = f.dataType();
    if (t instanceof ArrayType array) {
      Integer dim = vectorDim;
      if (dim == null && f.metadata().contains(FIXED_SIZE_LIST_SIZE)) {
        dim = (int) f.metadata().getLong(FIXED_SIZE_LIST_SIZE);
      }
      Field item =
          toArrow(
              new StructField("item", array.elementType(), array.containsNull(), Metadata.empty()),
              null);
      ArrowType type = dim != null ? new ArrowType.FixedSizeList(dim) : ArrowType.List.INSTANCE;
      return new Field(f.name(), new FieldType(f.nullable(), type, null), List.of(item));
    }
    if (t instanceof StructType struct) {
      List<Field> children = new ArrayList<>();
      for (StructField c : struct.fields()) {
        children.add(toArrow(c, null));
      }
      return new Field(
          f.name(), new FieldType(f.nullable(), ArrowType.Struct.INSTANCE, null), children);
    }
    return new Field(f.name(), new FieldType(f.nullable(), arrowType(f.name(), t), null), null);
  }

  static ArrowType arrowType(String column, DataType t) {
    if (t instanceof BooleanType) {
      return ArrowType.Bool.INSTANCE;
    } else if (t instanceof ByteType) {
      return new ArrowType.Int(8, true);
    } else if (t instanceof ShortType) {
      return new ArrowType.Int(16, true);
    } else if (t instanceof IntegerType) {
      return new ArrowType.Int(32, true);
    } else if (t instanceof LongType) {
      return new ArrowType.Int(64, true);
    } else if (t instanceof FloatType) {
      return new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
    } else if (t instanceof DoubleType) {
      return new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
    } else if (t instanceof StringType) {
      return ArrowType.Utf8.INSTANCE;
    } else if (t instanceof BinaryType) {
      return ArrowType.Binary.INSTANCE;
    } else if (t instanceof DateType) {
      return new ArrowType.Date(DateUnit.DAY);
    } else if (t instanceof TimestampType) {
      return new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC");
    } else if (t instanceof TimestampNTZType) {
      return new ArrowType.Timestamp(TimeUnit.MICROSECOND, null);
    } else if (t instanceof DecimalType d) {
      return new ArrowType.Decimal(d.precision(), d.scale(), 128);
    }
    throw new InvalidInputException(
        "Cannot write column \""
            + column
            + "\" of Spark type "
            + t.simpleString()
            + " to Lance: the type is not supported. Cast it to a supported type (numbers, strings, binary, dates, "
            + "timestamps, decimals, arrays, structs).");
  }
}
