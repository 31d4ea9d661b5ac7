package dev.lancelot.engine.internal.expr.eval;

/**
 * The values of one computed expression over the rows of a batch. Exactly one array holds them,
 * chosen by the type: {@link #longs} for integers (uint64 as its raw bits), bools (0 or 1), dates
 * and timestamps; {@link #doubles} for floats (float16/32 widened exactly, NaN signs kept); {@link
 * #bytes} for strings (UTF-8) and binaries. {@link #valid} has a bit per non-NULL row (see {@link
 * Bits}); the value slots of NULL rows are unspecified.
 */
final class Values {
  final ValueType type;
  final long[] valid;
  long[] longs;
  double[] doubles;
  byte[][] bytes;

  Values(ValueType type, long[] valid) {
    this.type = type;
    this.valid = valid;
  }

  boolean isValid(int row) {
    return (valid[row >>> 6] & (1L << row)) != 0;
  }

  static long[] and(long[] a, long[] b) {
    long[] out = new long[a.length];
    for (int w = 0; w < a.length; w++) {
      out[w] = a[w] & b[w];
    }
    return out;
  }
}
