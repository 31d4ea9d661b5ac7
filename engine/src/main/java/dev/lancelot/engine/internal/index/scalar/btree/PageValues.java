package dev.lancelot.engine.internal.index.scalar.btree;

import dev.lancelot.engine.internal.expr.eval.ColumnKind;
import org.apache.arrow.vector.FieldVector;

/**
 * Decoded rows of BTree pages: per row a NULL flag, the value as a key ({@code keys}) or as bytes
 * ({@code bytes}), whichever the column kind uses, and the row address ({@code ids}). A view of
 * rows {@code [offset, offset + rows)} of its arrays, which are shared with slices and never
 * changed.
 */
public final class PageValues {
  private final int offset;
  private final int rows;
  private final boolean[] nulls;
  private final long[] keys;
  private final byte[][] bytes;
  private final long[] ids;

  PageValues(boolean[] nulls, long[] keys, byte[][] bytes, long[] ids) {
    this(nulls, keys, bytes, ids, 0, ids.length);
  }

  private PageValues(
      boolean[] nulls, long[] keys, byte[][] bytes, long[] ids, int offset, int rows) {
    this.offset = offset;
    this.rows = rows;
    this.nulls = nulls;
    this.keys = keys;
    this.bytes = bytes;
    this.ids = ids;
  }

  /**
   * Decodes the first {@code rows} rows of a {@code values} vector and an {@code ids} (uint64)
   * vector.
   */
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

  /** Rows {@code [from, to)} as their own page (a view, no copy). */
  PageValues slice(int from, int to) {
    if (from < 0 || to < from || to > rows) {
      throw new IndexOutOfBoundsException("rows [" + from + ", " + to + ") of " + rows);
    }
    return new PageValues(nulls, keys, bytes, ids, offset + from, to - from);
  }

  public int rows() {
    return rows;
  }

  public boolean isNull(int row) {
    return nulls[offset + row];
  }

  /** The key of a non-NULL row (key kinds only). */
  public long key(int row) {
    return keys[offset + row];
  }

  /** The bytes of a non-NULL row (string and binary kinds only). */
  public byte[] bytes(int row) {
    return bytes[offset + row];
  }

  public boolean hasKeys() {
    return keys != null;
  }

  /** The row address of a row. */
  public long id(int row) {
    return ids[offset + row];
  }

  /**
   * Approximate heap size of this page's rows, for cache accounting: a NULL flag, a row address and
   * a key or the bytes (with their array header) per row. Slices of one read share arrays; each is
   * weighed for its own rows.
   */
  public long estimatedBytes() {
    long total = 9L * rows; // NULL flag and row address
    if (keys != null) {
      total += 8L * rows;
    } else {
      for (int i = offset; i < offset + rows; i++) {
        total += BYTES_ARRAY_OVERHEAD + (bytes[i] == null ? 0 : bytes[i].length);
      }
    }
    return total;
  }

  /** Heap of a {@code byte[]} besides its contents: reference and array header. */
  static final int BYTES_ARRAY_OVERHEAD = 24;

  public int nullCount() {
    int n = 0;
    for (int i = offset; i < offset + rows; i++) {
      n += nulls[i] ? 1 : 0;
    }
    return n;
  }
}
