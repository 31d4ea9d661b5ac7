package dev.lancelot.engine.internal.expr.eval;

/** {@code column IS [NOT] NULL}: never UNKNOWN. */
public record IsNullKernel(int slot, boolean negated) implements Kernel {
  @Override
  public void evaluate(Batch batch, long[] isTrue, long[] isUnknown) {
    long[] valid = batch.validity(slot);
    for (int w = 0; w < valid.length; w++) {
      isTrue[w] = negated ? valid[w] : ~valid[w];
    }
    Bits.clearTail(isTrue, batch.rows());
  }
}
