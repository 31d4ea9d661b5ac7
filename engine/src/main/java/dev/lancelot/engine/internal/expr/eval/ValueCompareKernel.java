package dev.lancelot.engine.internal.expr.eval;

import dev.lancelot.engine.expr.CompareOp;
import java.util.Arrays;

/**
 * {@code left op right} on two computed values of a common type (see {@link ValueBinder}): UNKNOWN
 * where either is NULL. Floats compare in IEEE total order, strings and binaries byte-wise, bools
 * with false before true.
 */
record ValueCompareKernel(ValueNode left, CompareOp op, ValueNode right, Order order)
    implements Kernel {

  /** How the two values compare. */
  enum Order {
    SIGNED,
    UNSIGNED,
    /** uint64 on the left, a signed integer on the right: exactly, as numbers. */
    UNSIGNED_SIGNED,
    /** A signed integer on the left, uint64 on the right. */
    SIGNED_UNSIGNED,
    FLOAT,
    BYTES
  }

  @Override
  public void evaluate(Batch batch, long[] isTrue, long[] isUnknown) {
    Values a = left.evaluate(batch);
    Values b = right.evaluate(batch);
    long[] valid = Values.and(a.valid, b.valid);
    int n = batch.rows();
    for (int i = 0; i < n; i++) {
      if ((valid[i >>> 6] & (1L << i)) != 0 && op.test(compare(a, b, i))) {
        isTrue[i >>> 6] |= 1L << i;
      }
    }
    for (int w = 0; w < valid.length; w++) {
      isUnknown[w] = ~valid[w];
    }
    Bits.clearTail(isUnknown, n);
  }

  /** The comparison as filter SQL (the index planner names it when it cannot answer it). */
  @Override
  public String toString() {
    return left.sql() + " " + op.sql() + " " + right.sql();
  }

  private int compare(Values a, Values b, int i) {
    return switch (order) {
      case SIGNED -> Long.compare(a.longs[i], b.longs[i]);
      case UNSIGNED -> Long.compareUnsigned(a.longs[i], b.longs[i]);
      case UNSIGNED_SIGNED -> b.longs[i] < 0 ? 1 : Long.compareUnsigned(a.longs[i], b.longs[i]);
      case SIGNED_UNSIGNED -> a.longs[i] < 0 ? -1 : Long.compareUnsigned(a.longs[i], b.longs[i]);
      case FLOAT -> Long.compare(Keys.ofDouble(a.doubles[i]), Keys.ofDouble(b.doubles[i]));
      case BYTES -> Arrays.compareUnsigned(a.bytes[i], b.bytes[i]);
    };
  }
}
