package dev.lancelot.engine.internal.expr.eval;

/**
 * Vectorised evaluation of a bound predicate over one batch, in SQL's three-valued logic. The
 * result is two disjoint row bitsets (see {@link Bits}): rows where the predicate is TRUE and rows
 * where it is UNKNOWN; every other row is FALSE. Kernels are immutable and thread-safe.
 */
public interface Kernel {
  /**
   * Writes the result into {@code isTrue} and {@code isUnknown}, both {@code batch.words()} long
   * and zero on entry.
   */
  void evaluate(Batch batch, long[] isTrue, long[] isUnknown);

  /**
   * Finishes a leaf comparison: {@code match} says where the values satisfy the test; rows with a
   * NULL value are UNKNOWN; with {@code listHasNull} (an IN list containing NULL) so are the
   * non-matching rows.
   */
  static void finish(
      Batch batch, int slot, long[] match, boolean listHasNull, long[] isTrue, long[] isUnknown) {
    long[] valid = batch.validity(slot);
    for (int w = 0; w < valid.length; w++) {
      long m = match[w] & valid[w];
      isTrue[w] = m;
      isUnknown[w] = listHasNull ? ~m : ~valid[w];
    }
    Bits.clearTail(isUnknown, batch.rows());
  }
}
