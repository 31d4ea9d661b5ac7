package dev.lancelot.engine.internal.expr.eval;

import dev.lancelot.engine.expr.CompareOp;
import java.util.Arrays;

/**
 * A comparison on a string or binary column: byte-wise unsigned lexicographic order (for UTF-8 this
 * is code point order, as in Arrow and Lance); a prefix sorts first.
 */
public record BytesCompareKernel(int slot, byte[] literal, CompareOp op) implements Kernel {
  public BytesCompareKernel {
    literal = literal.clone();
  }

  @Override
  public void evaluate(Batch batch, long[] isTrue, long[] isUnknown) {
    ByteRows rows = batch.bytes(slot);
    int n = batch.rows();
    long[] match = new long[batch.words()];
    byte[] lit = literal;
    boolean equality = op == CompareOp.EQ || op == CompareOp.NE;
    for (int i = 0; i < n; i++) {
      int length = rows.load(i);
      boolean hit;
      if (equality) {
        boolean eq = length == lit.length && Arrays.equals(rows.bytes, 0, length, lit, 0, length);
        hit = eq == (op == CompareOp.EQ);
      } else {
        hit = op.test(Arrays.compareUnsigned(rows.bytes, 0, length, lit, 0, lit.length));
      }
      if (hit) {
        match[i >>> 6] |= 1L << i;
      }
    }
    Kernel.finish(batch, slot, match, false, isTrue, isUnknown);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BytesCompareKernel k
        && k.slot == slot
        && k.op == op
        && Arrays.equals(k.literal, literal);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(literal) * 31 + op.hashCode();
  }

  @Override
  public String toString() {
    return "BytesCompareKernel[slot="
        + slot
        + ", op="
        + op
        + ", literal="
        + Arrays.toString(literal)
        + "]";
  }
}
