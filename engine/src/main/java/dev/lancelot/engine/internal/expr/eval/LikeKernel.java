package dev.lancelot.engine.internal.expr.eval;

/** {@code column LIKE pattern} on a string column (NOT LIKE wraps it in {@link Logic.Not}). */
public record LikeKernel(int slot, LikePattern pattern) implements Kernel {
  @Override
  public void evaluate(Batch batch, long[] isTrue, long[] isUnknown) {
    ByteRows rows = batch.bytes(slot);
    int n = batch.rows();
    long[] match = new long[batch.words()];
    for (int i = 0; i < n; i++) {
      int length = rows.load(i);
      if (pattern.matches(rows.bytes, length)) {
        match[i >>> 6] |= 1L << i;
      }
    }
    Kernel.finish(batch, slot, match, false, isTrue, isUnknown);
  }
}
