package dev.lancelot.engine.internal.expr.eval;

import org.apache.arrow.memory.util.Float16;

/**
 * Integer and float arithmetic as Lance (Arrow kernels in Rust on x86-64) computes it: integers
 * wrap at their type's width; a NaN produced from non-NaN operands (0/0, inf - inf, x % 0) is the
 * x86 default NaN, which has its sign bit set and so sorts below -Infinity in the total order,
 * while a NaN operand passes through unchanged.
 */
final class Numbers {
  private Numbers() {}

  /** The NaN x86-64 produces for invalid operations: sign set, quiet, no payload. */
  static final double DEFAULT_NAN = Double.longBitsToDouble(0xFFF8_0000_0000_0000L);

  /** {@code v} wrapped to the width of integer kind {@code kind} (uint64 as raw bits). */
  static long wrap(ColumnKind kind, long v) {
    return switch (kind) {
      case INT8 -> (byte) v;
      case INT16 -> (short) v;
      case INT32 -> (int) v;
      case UINT8 -> v & 0xFFL;
      case UINT16 -> v & 0xFFFFL;
      case UINT32 -> v & 0xFFFF_FFFFL;
      default -> v;
    };
  }

  static boolean isSigned(ColumnKind kind) {
    return kind == ColumnKind.INT8
        || kind == ColumnKind.INT16
        || kind == ColumnKind.INT32
        || kind == ColumnKind.INT64;
  }

  static long minSigned(ColumnKind kind) {
    return switch (kind) {
      case INT8 -> Byte.MIN_VALUE;
      case INT16 -> Short.MIN_VALUE;
      case INT32 -> Integer.MIN_VALUE;
      default -> Long.MIN_VALUE;
    };
  }

  /** Rounds a float result to the precision of float kind {@code kind}. */
  static double round(ColumnKind kind, double v) {
    return switch (kind) {
      case FLOAT32 -> (float) v;
      case FLOAT16 -> Float16.toFloat(Float16.toFloat16((float) v));
      default -> v;
    };
  }

  /** The NaN rule of x86-64 for a result {@code r} of operands {@code x} and {@code y}. */
  static double nan(double r, double x, double y) {
    if (!Double.isNaN(r)) {
      return r;
    }
    return Double.isNaN(x) ? x : Double.isNaN(y) ? y : DEFAULT_NAN;
  }

  /** {@code -v} by flipping the sign bit (also of NaN and 0.0). */
  static double negate(double v) {
    return Double.longBitsToDouble(Double.doubleToRawLongBits(v) ^ Long.MIN_VALUE);
  }

  /** {@code |v|} by clearing the sign bit (also of NaN and -0.0). */
  static double abs(double v) {
    return Double.longBitsToDouble(Double.doubleToRawLongBits(v) & Long.MAX_VALUE);
  }

  /** An integer value of {@code kind} as a double, uint64 read as unsigned. */
  static double toDouble(ColumnKind kind, long v) {
    if (kind == ColumnKind.UINT64 && v < 0) {
      double half = (double) ((v >>> 1) | (v & 1));
      return half * 2.0;
    }
    return (double) v;
  }

  /** An integer value of {@code kind} as a float (rounded once), uint64 read as unsigned. */
  static float toFloat(ColumnKind kind, long v) {
    if (kind == ColumnKind.UINT64 && v < 0) {
      float half = (float) ((v >>> 1) | (v & 1));
      return half * 2.0f;
    }
    return (float) v;
  }

  /** Text of an integer value of {@code kind}. */
  static String toString(ColumnKind kind, long v) {
    return kind == ColumnKind.UINT64 ? Long.toUnsignedString(v) : Long.toString(v);
  }
}
