package dev.lancelot.engine.internal.expr.eval;

/**
 * A test on a boolean column that accepts exactly one value: {@code flag}, {@code flag = true},
 * {@code flag < true} (accepts false), {@code flag IN (false)} etc. Works on whole words of the
 * bit-packed values. (Accepting both or neither value is a {@link ValidRowsKernel}.)
 */
public record BoolKernel(int slot, boolean accepted, boolean listHasNull) implements Kernel {
  @Override
  public void evaluate(Batch batch, long[] isTrue, long[] isUnknown) {
    long[] values = Bits.read(batch.vector(slot).getDataBuffer(), batch.rows());
    if (!accepted) {
      for (int w = 0; w < values.length; w++) {
        values[w] = ~values[w];
      }
    }
    Kernel.finish(batch, slot, values, listHasNull, isTrue, isUnknown);
  }
}
