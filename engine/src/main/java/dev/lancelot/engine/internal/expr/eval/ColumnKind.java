package dev.lancelot.engine.internal.expr.eval;

import org.apache.arrow.vector.types.pojo.ArrowType;

/** How filters read a column of a given Arrow type. */
public enum ColumnKind {
  INT8,
  INT16,
  INT32,
  INT64,
  UINT8,
  UINT16,
  UINT32,
  UINT64,
  FLOAT16,
  FLOAT32,
  FLOAT64,
  /** Days since the epoch (int32). */
  DATE32,
  /** Milliseconds since the epoch (int64). */
  DATE64,
  /** Units since the epoch (int64); unit and zone come from the type. */
  TIMESTAMP,
  BOOL,
  UTF8,
  LARGE_UTF8,
  UTF8_VIEW,
  BINARY,
  LARGE_BINARY,
  BINARY_VIEW,
  FIXED_BINARY,
  /** Anything else: only IS [NOT] NULL applies. */
  OTHER;

  public static ColumnKind of(ArrowType type) {
    switch (type.getTypeID()) {
      case Int:
        {
          ArrowType.Int i = (ArrowType.Int) type;
          return switch (i.getBitWidth()) {
            case 8 -> i.getIsSigned() ? INT8 : UINT8;
            case 16 -> i.getIsSigned() ? INT16 : UINT16;
            case 32 -> i.getIsSigned() ? INT32 : UINT32;
            case 64 -> i.getIsSigned() ? INT64 : UINT64;
            default -> OTHER;
          };
        }
      case FloatingPoint:
        return switch (((ArrowType.FloatingPoint) type).getPrecision()) {
          case HALF -> FLOAT16;
          case SINGLE -> FLOAT32;
          case DOUBLE -> FLOAT64;
        };
      case Date:
        return ((ArrowType.Date) type).getUnit() == org.apache.arrow.vector.types.DateUnit.DAY
            ? DATE32
            : DATE64;
      case Timestamp:
        return TIMESTAMP;
      case Bool:
        return BOOL;
      case Utf8:
        return UTF8;
      case LargeUtf8:
        return LARGE_UTF8;
      case Utf8View:
        return UTF8_VIEW;
      case Binary:
        return BINARY;
      case LargeBinary:
        return LARGE_BINARY;
      case BinaryView:
        return BINARY_VIEW;
      case FixedSizeBinary:
        return FIXED_BINARY;
      default:
        return OTHER;
    }
  }

  /** Read as a 64-bit key whose signed order is the column's order (see {@link Keys}). */
  public boolean hasKeys() {
    return isInteger() || isFloat() || isTemporal();
  }

  @SuppressWarnings("EnumOrdinal") // the integer kinds are declared first, UINT64 last of them
  public boolean isInteger() {
    return ordinal() <= UINT64.ordinal();
  }

  public boolean isFloat() {
    return this == FLOAT16 || this == FLOAT32 || this == FLOAT64;
  }

  public boolean isTemporal() {
    return this == DATE32 || this == DATE64 || this == TIMESTAMP;
  }

  public boolean isString() {
    return this == UTF8 || this == LARGE_UTF8 || this == UTF8_VIEW;
  }

  public boolean isBinary() {
    return this == BINARY || this == LARGE_BINARY || this == BINARY_VIEW || this == FIXED_BINARY;
  }
}
