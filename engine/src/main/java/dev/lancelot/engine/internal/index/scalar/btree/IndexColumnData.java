package dev.lancelot.engine.internal.index.scalar.btree;

import dev.lancelot.engine.internal.expr.eval.ColumnKind;
import java.util.Arrays;
import org.apache.arrow.vector.FieldVector;

/**
 * The values and row addresses of one column gathered for a BTree build, and their index order:
 * NULLs first, then values ascending (keys signed, bytes unsigned), equal values by row address.
 * Not thread-safe.
 */
public final class IndexColumnData {
  private final ColumnKind kind;
  private final boolean keyed;
  private int size;
  private boolean[] nulls;
  private long[] keys;
  private byte[][] bytes;
  private long[] addresses;

  public IndexColumnData(ColumnKind kind, int expectedRows) {
    if (!ValueCodec.supports(kind)) {
      throw new IllegalArgumentException("kind " + kind + " cannot be indexed");
    }
    this.kind = kind;
    this.keyed = ValueCodec.usesKeys(kind);
    int capacity = Math.max(16, expectedRows);
    nulls = new boolean[capacity];
    addresses = new long[capacity];
    if (keyed) {
      keys = new long[capacity];
    } else {
      bytes = new byte[capacity][];
    }
  }

  public ColumnKind kind() {
    return kind;
  }

  public int size() {
    return size;
  }

  /**
   * Appends the first {@code rows} values of {@code values} with their addresses ({@code _rowaddr},
   * uint64).
   */
  public void append(FieldVector values, FieldVector rowAddresses, int rows) {
    ensure(size + rows);
    boolean[] n = ValueCodec.nulls(values, rows);
    System.arraycopy(n, 0, nulls, size, rows);
    if (keyed) {
      System.arraycopy(ValueCodec.keys(values, kind, rows), 0, keys, size, rows);
    } else {
      System.arraycopy(ValueCodec.bytes(values, kind, rows), 0, bytes, size, rows);
    }
    for (int i = 0; i < rows; i++) {
      addresses[size + i] = rowAddresses.getDataBuffer().getLong((long) i << 3);
    }
    size += rows;
  }

  public boolean isNull(int row) {
    return nulls[row];
  }

  public long key(int row) {
    return keys[row];
  }

  public byte[] bytes(int row) {
    return bytes[row];
  }

  public long address(int row) {
    return addresses[row];
  }

  public boolean keyed() {
    return keyed;
  }

  /**
   * Row positions in index order. Keyed values whose rows were appended in row-address order (a
   * scan's order) are sorted by a stable radix sort over only the key bytes that differ between
   * rows (one pass for a column of small integers); other data by a merge sort on the full order.
   */
  public int[] sortedOrder() {
    if (keyed && addressesAscending()) {
      return radixOrder();
    }
    int[] order = new int[size];
    for (int i = 0; i < size; i++) {
      order[i] = i;
    }
    mergeSort(order, new int[size], 0, size);
    return order;
  }

  private boolean addressesAscending() {
    for (int i = 1; i < size; i++) {
      if (Long.compareUnsigned(addresses[i - 1], addresses[i]) > 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * NULL rows first in append order, then the other rows stably sorted by key: with rows appended
   * in address order, equal keys stay in address order, which is the index order.
   */
  private int[] radixOrder() {
    int[] order = new int[size];
    int nullCount = 0;
    for (int i = 0; i < size; i++) {
      if (nulls[i]) {
        order[nullCount++] = i;
      }
    }
    int n = size - nullCount;
    int[] rows = new int[n];
    long[] sortKeys = new long[n];
    long differing = 0;
    int j = 0;
    for (int i = 0; i < size; i++) {
      if (!nulls[i]) {
        rows[j] = i;
        // Flipping the sign bit turns signed order into unsigned order, which bytes sort by.
        sortKeys[j] = keys[i] ^ Long.MIN_VALUE;
        differing |= sortKeys[j] ^ sortKeys[0];
        j++;
      }
    }
    int[] rowsTmp = new int[n];
    long[] keysTmp = new long[n];
    int[] counts = new int[257];
    for (int shift = 0; shift < 64; shift += 8) {
      if (((differing >>> shift) & 0xff) == 0) {
        continue;
      }
      java.util.Arrays.fill(counts, 0);
      for (int i = 0; i < n; i++) {
        counts[(int) ((sortKeys[i] >>> shift) & 0xff) + 1]++;
      }
      for (int b = 0; b < 256; b++) {
        counts[b + 1] += counts[b];
      }
      for (int i = 0; i < n; i++) {
        int slot = counts[(int) ((sortKeys[i] >>> shift) & 0xff)]++;
        keysTmp[slot] = sortKeys[i];
        rowsTmp[slot] = rows[i];
      }
      long[] k = sortKeys;
      sortKeys = keysTmp;
      keysTmp = k;
      int[] r = rows;
      rows = rowsTmp;
      rowsTmp = r;
    }
    System.arraycopy(rows, 0, order, nullCount, n);
    return order;
  }

  private int compare(int a, int b) {
    if (nulls[a] != nulls[b]) {
      return nulls[a] ? -1 : 1;
    }
    if (!nulls[a]) {
      int c = keyed ? Long.compare(keys[a], keys[b]) : Arrays.compareUnsigned(bytes[a], bytes[b]);
      if (c != 0) {
        return c;
      }
    }
    return Long.compareUnsigned(addresses[a], addresses[b]);
  }

  /** Sorts {@code a[from, to)} using {@code tmp} as scratch; bottom-up would do as well. */
  private void mergeSort(int[] a, int[] tmp, int from, int to) {
    if (to - from <= 24) {
      for (int i = from + 1; i < to; i++) {
        int v = a[i];
        int j = i - 1;
        while (j >= from && compare(a[j], v) > 0) {
          a[j + 1] = a[j];
          j--;
        }
        a[j + 1] = v;
      }
      return;
    }
    int mid = (from + to) >>> 1;
    mergeSort(a, tmp, from, mid);
    mergeSort(a, tmp, mid, to);
    if (compare(a[mid - 1], a[mid]) <= 0) {
      return;
    }
    System.arraycopy(a, from, tmp, from, to - from);
    int i = from;
    int j = mid;
    for (int k = from; k < to; k++) {
      if (j >= to || (i < mid && compare(tmp[i], tmp[j]) <= 0)) {
        a[k] = tmp[i++];
      } else {
        a[k] = tmp[j++];
      }
    }
  }

  private void ensure(int capacity) {
    if (capacity <= nulls.length) {
      return;
    }
    int next =
        (int) Math.min(Integer.MAX_VALUE - 8, Math.max(capacity, (long) nulls.length * 3 / 2));
    if (next < capacity) {
      throw new IllegalStateException("cannot hold " + capacity + " rows in one build");
    }
    nulls = Arrays.copyOf(nulls, next);
    addresses = Arrays.copyOf(addresses, next);
    if (keyed) {
      keys = Arrays.copyOf(keys, next);
    } else {
      bytes = Arrays.copyOf(bytes, next);
    }
  }
}
