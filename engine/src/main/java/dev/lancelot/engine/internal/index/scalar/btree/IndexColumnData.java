package dev.lancelot.engine.internal.index.scalar.btree;

import dev.lancelot.engine.internal.expr.eval.ColumnKind;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.apache.arrow.vector.FieldVector;

/**
 * The values and row addresses of one column gathered for a BTree build, and their index order:
 * NULLs first, then values ascending (keys signed, bytes unsigned), equal values by row address.
 * Not thread-safe.
 */
public final class IndexColumnData {
  /** Key spans below which {@link #sorted} counts keys instead of radix-sorting them. */
  static final int COUNTING_RANGE = 1 << 16;

  private final ColumnKind kind;
  private final boolean keyed;
  private int size;
  private boolean[] nulls;
  private long[] keys;
  private byte[][] bytes;
  private long[] addresses;
  // Kept while appending, so sorting needs no extra pass to find them.
  private int nullCount;
  private long minKey = Long.MAX_VALUE;
  private long maxKey = Long.MIN_VALUE;
  private boolean addressesAscending = true;

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
    if (rows == 0) {
      return;
    }
    ensure(size + rows);
    // Straight into the column's arrays: no array per batch, the addresses in one bulk copy.
    boolean anyNull = values.getNullCount() > 0;
    ValueCodec.nullsInto(values, rows, nulls, size);
    if (keyed) {
      ValueCodec.keysInto(values, kind, rows, keys, size);
    } else {
      System.arraycopy(ValueCodec.bytes(values, kind, rows), 0, bytes, size, rows);
    }
    rowAddresses
        .getDataBuffer()
        .nioBuffer(0, rows * Long.BYTES)
        .order(ByteOrder.LITTLE_ENDIAN)
        .asLongBuffer()
        .get(addresses, size, rows);
    int end = size + rows;
    // The loops below make no calls, which keeps them cheap while they still run interpreted.
    if (addressesAscending) {
      // Unsigned order: compare with the sign bits flipped.
      long previous = (size == 0 ? 0 : addresses[size - 1]) ^ Long.MIN_VALUE;
      for (int i = size; i < end; i++) {
        long a = addresses[i] ^ Long.MIN_VALUE;
        if (a < previous) {
          addressesAscending = false;
          break;
        }
        previous = a;
      }
    }
    if (anyNull || keyed) {
      long min = minKey;
      long max = maxKey;
      for (int i = size; i < end; i++) {
        if (nulls[i]) {
          nullCount++;
        } else if (keyed) {
          long k = keys[i];
          if (k < min) {
            min = k;
          }
          if (k > max) {
            max = k;
          }
        }
      }
      minKey = min;
      maxKey = max;
    }
    size = end;
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
   * The rows in index order: their positions, their addresses and (keyed data) their keys, in index
   * order; the first {@code nullCount} rows are the NULLs (their keys are garbage).
   */
  public record Sorted(int[] order, long[] addresses, long[] keys, int nullCount) {}

  /** Row positions in index order ({@link #sorted}). */
  public int[] sortedOrder() {
    return sorted().order();
  }

  /**
   * The index order. Keyed values whose rows were appended in row-address order (a scan's order)
   * are sorted stably by key: by a counting sort when {@code max - min} of the keys is below {@link
   * #COUNTING_RANGE} or the row count (e.g. tenant ids, small codes, dates of a few years), else by
   * a radix sort over only the key bytes that differ between rows. Other data are sorted by a merge
   * sort on the full order. The counting sort writes addresses and keys in index order as it places
   * rows, and the radix sort carries the keys, so neither gathers them afterwards.
   */
  public Sorted sorted() {
    if (keyed && addressesAscending) {
      Sorted counted = counted();
      return counted != null ? counted : radixSorted();
    }
    int[] order = new int[size];
    for (int i = 0; i < size; i++) {
      order[i] = i;
    }
    mergeSort(order, new int[size], 0, size);
    long[] sortedAddresses = new long[size];
    long[] sortedKeys = keyed ? new long[size] : null;
    for (int i = 0; i < size; i++) {
      sortedAddresses[i] = addresses[order[i]];
    }
    if (keyed) {
      for (int i = 0; i < size; i++) {
        sortedKeys[i] = keys[order[i]];
      }
    }
    return new Sorted(order, sortedAddresses, sortedKeys, nullCount);
  }

  /**
   * The index order by a counting sort (NULL rows first in append order, then one slot range per
   * key, filled in append order, which is address order), or null when {@code max - min} of the
   * non-null keys is not below {@code max(}{@link #COUNTING_RANGE}{@code , size)}. One pass places
   * every row, reading the rows in order; the keys in index order are runs of equal keys.
   */
  Sorted counted() {
    int[] order = new int[size];
    long[] sortedAddresses = new long[size];
    long[] sortedKeys = new long[size];
    if (nullCount == size) {
      for (int i = 0; i < size; i++) {
        order[i] = i;
        sortedAddresses[i] = addresses[i];
      }
      return new Sorted(order, sortedAddresses, sortedKeys, nullCount);
    }
    // maxKey >= minKey, so the difference read unsigned is the span even when it overflows.
    long span = maxKey - minKey;
    if (Long.compareUnsigned(span, Math.max(COUNTING_RANGE, size)) >= 0) {
      return null;
    }
    long min = minKey;
    int[] next = new int[(int) span + 1]; // per key: its count, then its next free slot
    for (int i = 0; i < size; i++) {
      if (!nulls[i]) {
        next[(int) (keys[i] - min)]++;
      }
    }
    int slot = nullCount;
    for (int k = 0; k < next.length; k++) {
      int c = next[k];
      Arrays.fill(sortedKeys, slot, slot + c, min + k);
      next[k] = slot;
      slot += c;
    }
    int nullSlot = 0;
    for (int i = 0; i < size; i++) {
      int at = nulls[i] ? nullSlot++ : next[(int) (keys[i] - min)]++;
      order[at] = i;
      sortedAddresses[at] = addresses[i];
    }
    return new Sorted(order, sortedAddresses, sortedKeys, nullCount);
  }

  /**
   * NULL rows first in append order, then the other rows stably sorted by key: with rows appended
   * in address order, equal keys stay in address order, which is the index order.
   */
  private Sorted radixSorted() {
    int[] order = new int[size];
    int nulled = 0;
    for (int i = 0; i < size; i++) {
      if (nulls[i]) {
        order[nulled++] = i;
      }
    }
    int n = size - nulled;
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
      Arrays.fill(counts, 0);
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
    System.arraycopy(rows, 0, order, nulled, n);
    long[] sortedAddresses = new long[size];
    for (int i = 0; i < size; i++) {
      sortedAddresses[i] = addresses[order[i]];
    }
    long[] sortedKeys = keysTmp.length == size ? keysTmp : new long[size]; // reuse the scratch
    for (int i = 0; i < n; i++) {
      sortedKeys[nulled + i] = sortKeys[i] ^ Long.MIN_VALUE;
    }
    return new Sorted(order, sortedAddresses, sortedKeys, nulled);
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
