package dev.lancelot.engine.internal.expr.eval;

import java.util.Arrays;

/** A literal, the same value on every row (or NULL on every row). */
record ConstantNode(
    ValueType type, long longValue, double doubleValue, byte[] bytesValue, String sql)
    implements ValueNode {
  @Override
  public Values evaluate(Batch batch) {
    int n = batch.rows();
    if (type.isNull()) {
      return new Values(type, new long[batch.words()]);
    }
    Values v = new Values(type, Bits.allSet(n));
    if (type.isLong()) {
      v.longs = new long[n];
      Arrays.fill(v.longs, longValue);
    } else if (type.kind().isFloat()) {
      v.doubles = new double[n];
      Arrays.fill(v.doubles, doubleValue);
    } else {
      v.bytes = new byte[n][];
      Arrays.fill(v.bytes, bytesValue);
    }
    return v;
  }
}
