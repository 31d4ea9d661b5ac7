package dev.lancelot.engine.index.scalar.btree;

import dev.lancelot.engine.expr.eval.ColumnKind;
import java.util.Arrays;
import org.apache.arrow.vector.FieldVector;

/**
 * Decoded rows of BTree pages: per row a NULL flag, the value as a key ({@code keys}) or as bytes
 * ({@code bytes}), whichever the column kind uses, and the row address ({@code ids}). Immutable by
 * convention: the arrays are not copied and must not be changed.
 */
public final class PageValues {
  private final int rows;
  private final boolean[] nulls;
  private final long[] keys;
  private final byte[][] bytes;
  private final long[] ids;

  PageValues(boolean[] nulls, long[] keys, byte[][] bytes, long[] ids) {
    this.rows = ids.length;
    this.nulls = nulls;
    this.keys = keys;
    this.bytes = bytes;
    this.ids = ids;
  }

  /** Decodes the first {@code rows} rows of a {@code values} vector and an {@code ids} (uint64) vector. */
  static PageValues decode(FieldVector values, FieldVector ids, ColumnKind kind, int rows) {
    long[] addresses = new long[rows];
    for (int i = 0; i < rows; i++) {
      addresses[i] = ids.getDataBuffer().getLong((long) i << 3);
    }
    boolean[] nulls = ValueCodec.nulls(values, rows);
    if (ValueCodec.usesKeys(kind)) {
      return new PageValues(nulls, ValueCodec.keys(values, kind, rows), null, addresses);
    }
    return new PageValues(nulls, null, ValueCodec.bytes(values, kind, rows), addresses);
  }

  /** Rows {@code [from, to)} as their own page. */
  PageValues slice(int from, int to) {
    return new PageValues(Arrays.copyOfRange(nulls, from, to),
        keys == null ? null : Arrays.copyOfRange(keys, from, to),
        bytes == null ? null : Arrays.copyOfRange(bytes, from, to),
        Arrays.copyOfRange(ids, from, to));
  }

  public int rows() {
    return rows;
  }

  public boolean isNull(int row) {
    return nulls[row];
  }

  /** The key of a non-NULL row (key kinds only). */
  public long key(int row) {
    return keys[row];
  }

  /** The bytes of a non-NULL row (string and binary kinds only). */
  public byte[] bytes(int row) {
    return bytes[row];
  }

  public boolean hasKeys() {
    return keys != null;
  }

  /** The row address of a row. */
  public long id(int row) {
    return ids[row];
  }

  public int nullCount() {
    int n = 0;
    for (boolean b : nulls) {
      n += b ? 1 : 0;
    }
    return n;
  }
}
