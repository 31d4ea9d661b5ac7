package dev.lancelot.engine.internal.expr.eval;

import java.util.Arrays;

/**
 * {@code column IN (...)} on a numeric or temporal column: values whose key is one of {@code keys}
 * (sorted, distinct) match. With {@code listHasNull}, non-matching rows are UNKNOWN.
 */
public record KeySetKernel(int slot, long[] keys, boolean listHasNull) implements Kernel {
  private static final int LINEAR_MAX = 8;

  public KeySetKernel {
    keys = keys.clone();
    Arrays.sort(keys);
    for (int i = 1; i < keys.length; i++) {
      if (keys[i] == keys[i - 1]) {
        throw new IllegalArgumentException("duplicate key " + keys[i]);
      }
    }
  }

  @Override
  public void evaluate(Batch batch, long[] isTrue, long[] isUnknown) {
    long[] values = batch.keys(slot);
    int rows = batch.rows();
    long[] match = new long[batch.words()];
    long[] set = keys;
    boolean linear = set.length <= LINEAR_MAX;
    for (int i = 0; i < rows; i++) {
      long v = values[i];
      boolean hit = false;
      if (linear) {
        for (long k : set) {
          hit |= k == v;
        }
      } else {
        hit = Arrays.binarySearch(set, v) >= 0;
      }
      if (hit) {
        match[i >>> 6] |= 1L << i;
      }
    }
    Kernel.finish(batch, slot, match, listHasNull, isTrue, isUnknown);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KeySetKernel k
        && k.slot == slot
        && k.listHasNull == listHasNull
        && Arrays.equals(k.keys, keys);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(keys) * 31 + slot;
  }

  @Override
  public String toString() {
    return "KeySetKernel[slot="
        + slot
        + ", keys="
        + Arrays.toString(keys)
        + ", listHasNull="
        + listHasNull
        + "]";
  }
}
