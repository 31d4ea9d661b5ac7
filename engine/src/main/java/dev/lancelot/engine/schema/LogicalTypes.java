package dev.lancelot.engine.schema;

import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * Lance's logical type strings (field 5 of {@code lance.file.Field}) and their Arrow types.
 *
 * <p>Spellings, as written by Lance 7: {@code null bool int8 uint8 int16 uint16 int32 uint32 int64
 * uint64 halffloat float double string binary large_string large_binary json date32:day date64:ms
 * time32:s|ms time64:us|ns duration:s|ms|us|ns timestamp:<unit>:<tz or -> decimal:128:<p>:<s>
 * decimal:256:<p>:<s> fixed_size_binary:<n> fixed_size_list:<item type>:<n> struct list list.struct
 * large_list large_list.struct map dict:<value type>:<key type>:false}. A map (keys not sorted) has
 * one child field, the struct of its entries (key, value). A fixed-size list is a single Lance
 * field (no child field); its item type is part of the string and its Arrow item field is always
 * {@code item}, nullable.
 */
public final class LogicalTypes {
  /** Arrow extension metadata key carrying the extension name. */
  public static final String ARROW_EXT_NAME = "ARROW:extension:name";

  /** Arrow extension metadata key carrying the extension metadata. */
  public static final String ARROW_EXT_META = "ARROW:extension:metadata";

  /** Lance's bfloat16 extension, stored as fixed_size_binary:2 items. */
  public static final String BFLOAT16 = "lance.bfloat16";

  /** Arrow's canonical JSON extension; Lance stores it as logical type {@code json}. */
  public static final String ARROW_JSON = "arrow.json";

  private LogicalTypes() {}

  /** Lance's logical type string of an Arrow field. */
  public static String of(Field field) {
    String ext = field.getMetadata() == null ? null : field.getMetadata().get(ARROW_EXT_NAME);
    if (ARROW_JSON.equals(ext) || "lance.json".equals(ext)) {
      return "json";
    }
    ArrowType type = field.getType();
    if (type instanceof ArrowType.FixedSizeList fsl) {
      Field item = field.getChildren().get(0);
      String itemExt = item.getMetadata() == null ? null : item.getMetadata().get(ARROW_EXT_NAME);
      String inner = BFLOAT16.equals(itemExt) ? BFLOAT16 : of(item);
      return "fixed_size_list:" + inner + ":" + fsl.getListSize();
    }
    if (type instanceof ArrowType.List) {
      return isStruct(field.getChildren().get(0)) ? "list.struct" : "list";
    }
    if (type instanceof ArrowType.LargeList) {
      return isStruct(field.getChildren().get(0)) ? "large_list.struct" : "large_list";
    }
    if (type instanceof ArrowType.Map map) {
      if (map.getKeysSorted()) {
        throw new SchemaException(
            "Cannot store map field \""
                + field.getName()
                + "\" with sorted keys in a Lance schema: Lance has a logical type only for maps"
                + " whose keys are not sorted.");
      }
      return "map";
    }
    if (field.getDictionary() != null) {
      ArrowType.Int index = field.getDictionary().getIndexType();
      return "dict:" + of(type) + ":" + of(index) + ":false";
    }
    return of(type);
  }

  private static boolean isStruct(Field f) {
    return f.getType() instanceof ArrowType.Struct;
  }

  /** Lance's logical type string of a non-nested Arrow type (or "struct"). */
  public static String of(ArrowType type) {
    return switch (type.getTypeID()) {
      case Null -> "null";
      case Bool -> "bool";
      case Int -> {
        ArrowType.Int i = (ArrowType.Int) type;
        yield (i.getIsSigned() ? "int" : "uint") + i.getBitWidth();
      }
      case FloatingPoint ->
          switch (((ArrowType.FloatingPoint) type).getPrecision()) {
            case HALF -> "halffloat";
            case SINGLE -> "float";
            case DOUBLE -> "double";
          };
      case Decimal -> {
        ArrowType.Decimal d = (ArrowType.Decimal) type;
        yield "decimal:" + d.getBitWidth() + ":" + d.getPrecision() + ":" + d.getScale();
      }
      case Utf8 -> "string";
      case Binary -> "binary";
      case LargeUtf8 -> "large_string";
      case LargeBinary -> "large_binary";
      case Date -> ((ArrowType.Date) type).getUnit() == DateUnit.DAY ? "date32:day" : "date64:ms";
      case Time -> {
        ArrowType.Time t = (ArrowType.Time) type;
        yield "time" + t.getBitWidth() + ":" + unit(t.getUnit());
      }
      case Timestamp -> {
        ArrowType.Timestamp t = (ArrowType.Timestamp) type;
        yield "timestamp:"
            + unit(t.getUnit())
            + ":"
            + (t.getTimezone() == null ? "-" : t.getTimezone());
      }
      case Duration -> "duration:" + unit(((ArrowType.Duration) type).getUnit());
      case FixedSizeBinary ->
          "fixed_size_binary:" + ((ArrowType.FixedSizeBinary) type).getByteWidth();
      case Struct -> "struct";
      default ->
          throw new SchemaException(
              "Cannot store Arrow type "
                  + type
                  + " in a Lance schema: Lance has no logical type for it. Convert the column to a supported type.");
    };
  }

  private static String unit(TimeUnit unit) {
    return switch (unit) {
      case SECOND -> "s";
      case MILLISECOND -> "ms";
      case MICROSECOND -> "us";
      case NANOSECOND -> "ns";
    };
  }

  private static TimeUnit parseUnit(String s, String logicalType) {
    return switch (s) {
      case "s" -> TimeUnit.SECOND;
      case "ms" -> TimeUnit.MILLISECOND;
      case "us" -> TimeUnit.MICROSECOND;
      case "ns" -> TimeUnit.NANOSECOND;
      default -> throw unsupported(logicalType);
    };
  }

  /**
   * The Arrow type of a logical type string. For nested types ("struct", "list", ...) the children
   * come from the schema's child fields; for fixed-size lists the item field is built here (see
   * {@link #fixedSizeListItem(String)}).
   */
  public static ArrowType toArrow(String logicalType) {
    switch (logicalType) {
      case "null":
        return ArrowType.Null.INSTANCE;
      case "bool":
        return ArrowType.Bool.INSTANCE;
      case "int8":
        return new ArrowType.Int(8, true);
      case "uint8":
        return new ArrowType.Int(8, false);
      case "int16":
        return new ArrowType.Int(16, true);
      case "uint16":
        return new ArrowType.Int(16, false);
      case "int32":
        return new ArrowType.Int(32, true);
      case "uint32":
        return new ArrowType.Int(32, false);
      case "int64":
        return new ArrowType.Int(64, true);
      case "uint64":
        return new ArrowType.Int(64, false);
      case "halffloat":
        return new ArrowType.FloatingPoint(FloatingPointPrecision.HALF);
      case "float":
        return new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
      case "double":
        return new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case "string":
        return ArrowType.Utf8.INSTANCE;
      case "binary":
        return ArrowType.Binary.INSTANCE;
      case "large_string":
        return ArrowType.LargeUtf8.INSTANCE;
      case "large_binary", "json":
        return ArrowType.LargeBinary.INSTANCE;
      case "date32:day":
        return new ArrowType.Date(DateUnit.DAY);
      case "date64:ms":
        return new ArrowType.Date(DateUnit.MILLISECOND);
      case "struct":
        return ArrowType.Struct.INSTANCE;
      case "list", "list.struct":
        return ArrowType.List.INSTANCE;
      case "large_list", "large_list.struct":
        return ArrowType.LargeList.INSTANCE;
      case "map":
        return new ArrowType.Map(false);
      default:
        break;
    }
    String[] parts = logicalType.split(":", -1);
    try {
      switch (parts[0]) {
        case "time32":
        case "time64":
          {
            int bits = parts[0].equals("time32") ? 32 : 64;
            return new ArrowType.Time(parseUnit(parts[1], logicalType), bits);
          }
        case "duration":
          return new ArrowType.Duration(parseUnit(parts[1], logicalType));
        case "timestamp":
          {
            if (parts.length < 3) {
              throw unsupported(logicalType);
            }
            // A time zone name may itself contain ':' (e.g. "+05:30").
            String tz = logicalType.substring(("timestamp:" + parts[1] + ":").length());
            return new ArrowType.Timestamp(
                parseUnit(parts[1], logicalType), tz.equals("-") ? null : tz);
          }
        case "decimal":
          {
            if (parts.length != 4) {
              throw unsupported(logicalType);
            }
            int bits = Integer.parseInt(parts[1]);
            if (bits != 128 && bits != 256) {
              throw unsupported(logicalType);
            }
            return new ArrowType.Decimal(
                Integer.parseInt(parts[2]), Integer.parseInt(parts[3]), bits);
          }
        case "fixed_size_binary":
          return new ArrowType.FixedSizeBinary(Integer.parseInt(parts[1]));
        case "fixed_size_list":
          if (parts.length < 3) {
            throw unsupported(logicalType);
          }
          return new ArrowType.FixedSizeList(Integer.parseInt(parts[parts.length - 1]));
        case "dict":
          if (parts.length != 4) {
            throw unsupported(logicalType);
          }
          return toArrow(parts[1]);
        default:
          throw unsupported(logicalType);
      }
    } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
      throw new SchemaException(
          "Cannot parse Lance logical type \""
              + logicalType
              + "\": malformed number or missing part. The schema may be corrupt.",
          e);
    }
  }

  /** The item field of a {@code fixed_size_list:<item>:<n>} logical type. */
  public static Field fixedSizeListItem(String logicalType) {
    String[] parts = logicalType.split(":", -1);
    if (parts.length < 3 || !parts[0].equals("fixed_size_list")) {
      throw unsupported(logicalType);
    }
    String inner = String.join(":", List.of(parts).subList(1, parts.length - 1));
    if (inner.equals(BFLOAT16)) {
      return new Field(
          "item",
          new FieldType(
              true,
              new ArrowType.FixedSizeBinary(2),
              null,
              Map.of(ARROW_EXT_NAME, BFLOAT16, ARROW_EXT_META, "")),
          null);
    }
    ArrowType itemType = toArrow(inner);
    List<Field> children =
        itemType instanceof ArrowType.FixedSizeList ? List.of(fixedSizeListItem(inner)) : null;
    return new Field("item", FieldType.nullable(itemType), children);
  }

  /** Whether values of this logical type have a fixed width (Lance's "fixed stride"). */
  public static boolean isFixedStride(String logicalType) {
    ArrowType t = toArrow(logicalType);
    return switch (t.getTypeID()) {
      case Bool,
          Int,
          FloatingPoint,
          Decimal,
          FixedSizeList,
          FixedSizeBinary,
          Duration,
          Timestamp,
          Date,
          Time ->
          true;
      default -> false;
    };
  }

  /** Whether values of this logical type are variable-length bytes (strings or binary). */
  public static boolean isBinaryLike(String logicalType) {
    ArrowType t = toArrow(logicalType);
    return switch (t.getTypeID()) {
      case Utf8, Binary, LargeUtf8, LargeBinary -> true;
      default -> false;
    };
  }

  private static SchemaException unsupported(String logicalType) {
    return new SchemaException(
        "Cannot read Lance logical type \""
            + logicalType
            + "\": it is not supported by this version of lancelot.");
  }
}
