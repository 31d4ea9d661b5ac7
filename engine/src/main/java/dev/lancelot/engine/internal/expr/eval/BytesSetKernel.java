package dev.lancelot.engine.internal.expr.eval;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@code column IN (...)} on a string or binary column. Values are bucketed by length so a row is
 * only compared with the literals of its own length.
 */
public final class BytesSetKernel implements Kernel {
  private final int slot;
  private final boolean listHasNull;
  private final int[] lengths; // sorted distinct lengths
  private final byte[][][] byLength;

  public BytesSetKernel(int slot, List<byte[]> values, boolean listHasNull) {
    this.slot = slot;
    this.listHasNull = listHasNull;
    int[] ls = values.stream().mapToInt(v -> v.length).distinct().sorted().toArray();
    this.lengths = ls;
    this.byLength = new byte[ls.length][][];
    for (int i = 0; i < ls.length; i++) {
      List<byte[]> bucket = new ArrayList<>();
      for (byte[] v : values) {
        if (v.length == ls[i] && bucket.stream().noneMatch(b -> Arrays.equals(b, v))) {
          bucket.add(v.clone());
        }
      }
      byLength[i] = bucket.toArray(new byte[0][]);
    }
  }

  /** The column slot the kernel reads. */
  public int slot() {
    return slot;
  }

  /** The distinct values of the list (NULL excluded), grouped by length; copies. */
  public List<byte[]> values() {
    List<byte[]> out = new ArrayList<>();
    for (byte[][] bucket : byLength) {
      for (byte[] v : bucket) {
        out.add(v.clone());
      }
    }
    return out;
  }

  /** Whether the IN list held a NULL (non-matching rows are then UNKNOWN). */
  public boolean listHasNull() {
    return listHasNull;
  }

  @Override
  public void evaluate(Batch batch, long[] isTrue, long[] isUnknown) {
    ByteRows rows = batch.bytes(slot);
    int n = batch.rows();
    long[] match = new long[batch.words()];
    for (int i = 0; i < n; i++) {
      int length = rows.load(i);
      int bucket = Arrays.binarySearch(lengths, length);
      if (bucket < 0) {
        continue;
      }
      for (byte[] candidate : byLength[bucket]) {
        if (Arrays.equals(rows.bytes, 0, length, candidate, 0, length)) {
          match[i >>> 6] |= 1L << i;
          break;
        }
      }
    }
    Kernel.finish(batch, slot, match, listHasNull, isTrue, isUnknown);
  }

  @Override
  public String toString() {
    return "BytesSetKernel[slot="
        + slot
        + ", lengths="
        + Arrays.toString(lengths)
        + ", listHasNull="
        + listHasNull
        + "]";
  }
}
