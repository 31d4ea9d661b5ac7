package dev.lancelot.engine.internal.expr.eval;

import java.util.Arrays;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.Float16;

/** The values of a column (or nested field), read from the batch into {@link Values}. */
record ColumnValueNode(BoundColumn column, ValueType type) implements ValueNode {
  @Override
  public Values evaluate(Batch batch) {
    int slot = column.slot();
    int n = batch.rows();
    Values v = new Values(type, batch.validity(slot));
    ColumnKind kind = column.kind();
    if (kind.isFloat()) {
      ArrowBuf data = batch.vector(slot).getDataBuffer();
      double[] d = new double[n];
      for (int i = 0; i < n; i++) {
        d[i] =
            switch (kind) {
              case FLOAT64 -> data.getDouble((long) i << 3);
              case FLOAT32 -> data.getFloat((long) i << 2);
              default -> Float16.toFloat(data.getShort((long) i << 1));
            };
      }
      v.doubles = d;
    } else if (kind == ColumnKind.UINT64) {
      long[] keys = batch.keys(slot);
      long[] raw = new long[n];
      for (int i = 0; i < n; i++) {
        raw[i] = keys[i] ^ Long.MIN_VALUE;
      }
      v.longs = raw;
    } else if (kind.hasKeys()) {
      v.longs = batch.keys(slot); // the value itself for integers, dates and timestamps
    } else if (kind == ColumnKind.BOOL) {
      long[] bits = Bits.read(batch.vector(slot).getDataBuffer(), n);
      long[] l = new long[n];
      for (int i = 0; i < n; i++) {
        l[i] = (bits[i >>> 6] >>> i) & 1L;
      }
      v.longs = l;
    } else if (kind.isString() || kind.isBinary()) {
      ByteRows rows = batch.bytes(slot);
      byte[][] b = new byte[n][];
      for (int i = 0; i < n; i++) {
        if (v.isValid(i)) {
          b[i] = Arrays.copyOf(rows.bytes, rows.load(i));
        }
      }
      v.bytes = b;
    } else {
      throw new IllegalStateException(
          "column " + column.displayName() + " of kind " + kind + " has no values");
    }
    return v;
  }

  @Override
  public String sql() {
    return new dev.lancelot.engine.expr.Column(column.path()).toSql();
  }
}
