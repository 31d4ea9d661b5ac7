package dev.lancelot.engine.internal.expr.eval;

/**
 * A comparison whose answer is the same for every non-NULL value, e.g. {@code int8_col < 1000}
 * ({@code whenValid} true) or {@code int8_col = 2.5} (false); NULL values are UNKNOWN.
 */
public record ValidRowsKernel(int slot, boolean whenValid) implements Kernel {
  @Override
  public void evaluate(Batch batch, long[] isTrue, long[] isUnknown) {
    long[] valid = batch.validity(slot);
    for (int w = 0; w < valid.length; w++) {
      if (whenValid) {
        isTrue[w] = valid[w];
      }
      isUnknown[w] = ~valid[w];
    }
    Bits.clearTail(isUnknown, batch.rows());
  }
}
