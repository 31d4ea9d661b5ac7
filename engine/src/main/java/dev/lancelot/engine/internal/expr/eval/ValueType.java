package dev.lancelot.engine.internal.expr.eval;

import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The type of a computed value: how it is held ({@link ColumnKind}) and its Arrow type (for
 * timestamp units and messages). {@link #NULL} is the type of the {@code NULL} literal.
 */
record ValueType(ColumnKind kind, ArrowType arrow) {
  static final ValueType NULL = new ValueType(ColumnKind.OTHER, ArrowType.Null.INSTANCE);
  static final ValueType BOOL = of(ColumnKind.BOOL);
  static final ValueType INT32 = of(ColumnKind.INT32);
  static final ValueType INT64 = of(ColumnKind.INT64);
  static final ValueType FLOAT64 = of(ColumnKind.FLOAT64);
  static final ValueType UTF8 = of(ColumnKind.UTF8);
  static final ValueType BINARY = of(ColumnKind.BINARY);

  static ValueType of(ColumnKind kind) {
    ArrowType arrow =
        switch (kind) {
          case INT8 -> new ArrowType.Int(8, true);
          case INT16 -> new ArrowType.Int(16, true);
          case INT32 -> new ArrowType.Int(32, true);
          case INT64 -> new ArrowType.Int(64, true);
          case UINT8 -> new ArrowType.Int(8, false);
          case UINT16 -> new ArrowType.Int(16, false);
          case UINT32 -> new ArrowType.Int(32, false);
          case UINT64 -> new ArrowType.Int(64, false);
          case FLOAT16 ->
              new ArrowType.FloatingPoint(
                  org.apache.arrow.vector.types.FloatingPointPrecision.HALF);
          case FLOAT32 ->
              new ArrowType.FloatingPoint(
                  org.apache.arrow.vector.types.FloatingPointPrecision.SINGLE);
          case FLOAT64 ->
              new ArrowType.FloatingPoint(
                  org.apache.arrow.vector.types.FloatingPointPrecision.DOUBLE);
          case BOOL -> ArrowType.Bool.INSTANCE;
          case UTF8 -> ArrowType.Utf8.INSTANCE;
          case LARGE_UTF8 -> ArrowType.LargeUtf8.INSTANCE;
          case UTF8_VIEW -> ArrowType.Utf8View.INSTANCE;
          case BINARY -> ArrowType.Binary.INSTANCE;
          case LARGE_BINARY -> ArrowType.LargeBinary.INSTANCE;
          case BINARY_VIEW -> ArrowType.BinaryView.INSTANCE;
          case DATE32 -> new ArrowType.Date(org.apache.arrow.vector.types.DateUnit.DAY);
          case DATE64 -> new ArrowType.Date(org.apache.arrow.vector.types.DateUnit.MILLISECOND);
          default -> throw new IllegalArgumentException("no default Arrow type for " + kind);
        };
    return new ValueType(kind, arrow);
  }

  boolean isNull() {
    return arrow instanceof ArrowType.Null;
  }

  boolean isNumeric() {
    return !isNull() && (kind.isInteger() || kind.isFloat());
  }

  /** Held as bytes: strings and binaries. */
  boolean isBytes() {
    return !isNull() && (kind.isString() || kind.isBinary());
  }

  /** Held in {@link Values#longs}: integers, bools, dates, timestamps. */
  boolean isLong() {
    return !isNull() && (kind.isInteger() || kind == ColumnKind.BOOL || kind.isTemporal());
  }

  String name() {
    return isNull() ? "null" : TypeNames.of(arrow);
  }
}
