package dev.lancelot.engine.internal.expr.eval;

import dev.lancelot.engine.expr.BinaryLiteral;
import dev.lancelot.engine.expr.BooleanLiteral;
import dev.lancelot.engine.expr.DateLiteral;
import dev.lancelot.engine.expr.Literal;
import dev.lancelot.engine.expr.NullLiteral;
import dev.lancelot.engine.expr.StringLiteral;
import dev.lancelot.engine.expr.TimestampLiteral;
import java.util.Locale;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** Short names of types and literals for error messages. */
final class TypeNames {
  private TypeNames() {}

  /** Like {@link #of(ArrowType)}, with the item type of list columns. */
  static String of(org.apache.arrow.vector.types.pojo.Field field) {
    ArrowType type = field.getType();
    if (type instanceof ArrowType.FixedSizeList l && field.getChildren().size() == 1) {
      return "fixed_size_list<" + of(field.getChildren().get(0)) + ", " + l.getListSize() + ">";
    } else if ((type instanceof ArrowType.List || type instanceof ArrowType.LargeList)
        && field.getChildren().size() == 1) {
      return (type instanceof ArrowType.List ? "list<" : "large_list<")
          + of(field.getChildren().get(0))
          + ">";
    }
    return of(type);
  }

  static String of(ArrowType type) {
    if (type instanceof ArrowType.Int i) {
      return (i.getIsSigned() ? "int" : "uint") + i.getBitWidth();
    } else if (type instanceof ArrowType.FloatingPoint f) {
      return switch (f.getPrecision()) {
        case HALF -> "float16";
        case SINGLE -> "float32";
        case DOUBLE -> "float64";
      };
    } else if (type instanceof ArrowType.Timestamp t) {
      String unit =
          switch (t.getUnit()) {
            case SECOND -> "s";
            case MILLISECOND -> "ms";
            case MICROSECOND -> "us";
            case NANOSECOND -> "ns";
          };
      return "timestamp(" + unit + (t.getTimezone() == null ? "" : ", " + t.getTimezone()) + ")";
    } else if (type instanceof ArrowType.Date d) {
      return d.getUnit() == org.apache.arrow.vector.types.DateUnit.DAY ? "date32" : "date64";
    } else if (type instanceof ArrowType.FixedSizeBinary b) {
      return "fixed_size_binary(" + b.getByteWidth() + ")";
    }
    return switch (type.getTypeID()) {
      case Bool -> "bool";
      case Utf8 -> "utf8";
      case LargeUtf8 -> "large_utf8";
      case Utf8View -> "utf8_view";
      case Binary -> "binary";
      case LargeBinary -> "large_binary";
      case BinaryView -> "binary_view";
      default -> type.toString().toLowerCase(Locale.ROOT);
    };
  }

  static String of(Literal literal) {
    String kind;
    if (literal instanceof StringLiteral) {
      kind = "the string ";
    } else if (literal instanceof BooleanLiteral) {
      kind = "the boolean ";
    } else if (literal instanceof DateLiteral) {
      kind = "the date literal ";
    } else if (literal instanceof TimestampLiteral) {
      kind = "the timestamp literal ";
    } else if (literal instanceof BinaryLiteral) {
      kind = "the binary literal ";
    } else if (literal instanceof NullLiteral) {
      kind = "";
    } else {
      kind = "the number ";
    }
    return kind + literal.toSql();
  }

  /** How to write a literal a column of this kind can be compared with. */
  static String exampleFor(ColumnKind kind) {
    if (kind.isInteger() || kind.isFloat()) {
      return "Compare it with a number, e.g. 42 or 1.5";
    } else if (kind.isString()) {
      return "Compare it with a string in single quotes, e.g. 'abc'";
    } else if (kind.isBinary()) {
      return "Compare it with a hex literal, e.g. X'0AFF'";
    } else if (kind == ColumnKind.BOOL) {
      return "Compare it with true or false";
    } else if (kind == ColumnKind.TIMESTAMP) {
      return "Compare it with a timestamp literal, e.g. timestamp '2024-01-31 10:00:00'";
    } else if (kind.isTemporal()) {
      return "Compare it with a date literal, e.g. date '2024-01-31'";
    }
    return "Only IS NULL and IS NOT NULL apply to it";
  }
}
