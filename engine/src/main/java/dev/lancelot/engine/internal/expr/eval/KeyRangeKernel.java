package dev.lancelot.engine.internal.expr.eval;

/**
 * A comparison on a numeric or temporal column as a key range: values whose key lies in {@code [lo,
 * hi]} (signed) match, or with {@code negated} those outside it. Every comparison operator maps to
 * one such range (see {@link Keys}), e.g. {@code x < 5} is {@code [MIN, 4]}.
 */
public record KeyRangeKernel(int slot, long lo, long hi, boolean negated) implements Kernel {
  public KeyRangeKernel {
    if (lo > hi) {
      throw new IllegalArgumentException("empty key range [" + lo + ", " + hi + "]");
    }
  }

  @Override
  public void evaluate(Batch batch, long[] isTrue, long[] isUnknown) {
    long[] keys = batch.keys(slot);
    int rows = batch.rows();
    long[] match = new long[batch.words()];
    // key in [lo, hi]  <=>  (key - lo) <= (hi - lo) compared unsigned; adding MIN_VALUE to both
    // sides turns the unsigned comparison into a signed one, branch-free in the loop.
    long low = lo;
    long span = (hi - lo) + Long.MIN_VALUE;
    long flip = negated ? -1L : 0L;
    for (int w = 0, base = 0; base < rows; w++, base += 64) {
      int end = Math.min(64, rows - base);
      long word = 0;
      for (int b = 0; b < end; b++) {
        long inside = (keys[base + b] - low + Long.MIN_VALUE) <= span ? 1L : 0L;
        word |= inside << b;
      }
      match[w] = word ^ flip;
    }
    Kernel.finish(batch, slot, match, false, isTrue, isUnknown);
  }
}
