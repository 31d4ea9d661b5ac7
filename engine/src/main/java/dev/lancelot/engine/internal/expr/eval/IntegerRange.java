package dev.lancelot.engine.internal.expr.eval;

import java.math.BigInteger;

/** The values an integer-valued column can hold. */
record IntegerRange(BigInteger min, BigInteger max) {
  private static IntegerRange of(long min, long max) {
    return new IntegerRange(BigInteger.valueOf(min), BigInteger.valueOf(max));
  }

  static IntegerRange of(ColumnKind kind) {
    return switch (kind) {
      case INT8 -> of(Byte.MIN_VALUE, Byte.MAX_VALUE);
      case INT16 -> of(Short.MIN_VALUE, Short.MAX_VALUE);
      case INT32, DATE32 -> of(Integer.MIN_VALUE, Integer.MAX_VALUE);
      case INT64, DATE64, TIMESTAMP -> of(Long.MIN_VALUE, Long.MAX_VALUE);
      case UINT8 -> of(0, 0xFF);
      case UINT16 -> of(0, 0xFFFF);
      case UINT32 -> of(0, 0xFFFF_FFFFL);
      case UINT64 ->
          new IntegerRange(BigInteger.ZERO, BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE));
      default -> throw new IllegalArgumentException(kind + " is not integer-valued");
    };
  }
}
