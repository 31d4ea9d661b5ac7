package dev.lancelot.engine.file.write;

import dev.lancelot.engine.schema.LanceField;
import dev.lancelot.engine.schema.SchemaException;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/** Picks the {@link ColumnBuffer} for a field, or refuses types the writer cannot store yet. */
public final class ColumnBuffers {
  private ColumnBuffers() {}

  /** Verifies that the writer supports this top-level field. */
  public static void check(LanceField field) {
    create(field);
  }

  static ColumnBuffer create(LanceField field) {
    Field arrow = field.toArrow();
    ArrowType type = arrow.getType();
    if (type instanceof ArrowType.Null) {
      return new NullColumnBuffer();
    }
    if (type instanceof ArrowType.Bool) {
      return new FixedColumnBuffer(0);
    }
    int width = fixedWidth(type);
    if (width > 0) {
      return new FixedColumnBuffer(width);
    }
    switch (type.getTypeID()) {
      case Utf8, Binary:
        return new VarColumnBuffer(4);
      case LargeUtf8, LargeBinary:
        return new VarColumnBuffer(8);
      case FixedSizeList: {
        Field item = arrow.getChildren().get(0);
        int itemWidth = fixedWidth(item.getType());
        if (itemWidth <= 0) {
          break;
        }
        return new FslColumnBuffer(((ArrowType.FixedSizeList) type).getListSize(), itemWidth);
      }
      default:
        break;
    }
    throw new SchemaException("Cannot write field \"" + field.name() + "\" of type " + field.logicalType()
        + ": the lancelot file writer supports primitive, string/binary and fixed-size-list-of-primitive"
        + " columns only. Nested structs and lists are not supported yet.");
  }

  /** Byte width of a fixed-width Arrow type, or -1. */
  static int fixedWidth(ArrowType type) {
    return switch (type.getTypeID()) {
      case Int -> ((ArrowType.Int) type).getBitWidth() / 8;
      case FloatingPoint -> switch (((ArrowType.FloatingPoint) type).getPrecision()) {
        case HALF -> 2;
        case SINGLE -> 4;
        case DOUBLE -> 8;
      };
      case Date -> ((ArrowType.Date) type).getUnit() == org.apache.arrow.vector.types.DateUnit.DAY ? 4 : 8;
      case Time -> ((ArrowType.Time) type).getBitWidth() / 8;
      case Timestamp, Duration -> 8;
      case Decimal -> ((ArrowType.Decimal) type).getBitWidth() / 8;
      case FixedSizeBinary -> ((ArrowType.FixedSizeBinary) type).getByteWidth();
      default -> -1;
    };
  }
}
