package dev.lancelot.engine.internal.expr.eval;

import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.BaseListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;

/**
 * {@code array_has_any} / {@code array_has_all} / {@code array_contains} on the list column in
 * {@code slot}: TRUE where some (with {@code all}: every) value is a non-NULL element of the row's
 * list, UNKNOWN where the list is NULL, else FALSE. Values are keys ({@code keys}) for numeric and
 * temporal elements or bytes ({@code bytes}) for strings and binaries, already coerced to the
 * element type; a value no element can equal is left out of {@code keys} and counted in {@code
 * unmatchable}.
 */
public record ArrayContainsKernel(
    int slot, ColumnKind itemKind, long[] keys, List<byte[]> bytes, int unmatchable, boolean all)
    implements Kernel {
  public ArrayContainsKernel {
    keys = keys == null ? null : Arrays.stream(keys).distinct().sorted().toArray();
    bytes = bytes == null ? null : List.copyOf(bytes);
  }

  /** The values to look for, as many as were given minus those equal to no element. */
  public int valueCount() {
    return keys != null ? keys.length : bytes.size();
  }

  @Override
  public void evaluate(Batch batch, long[] isTrue, long[] isUnknown) {
    FieldVector list = batch.vector(slot);
    FieldVector items = ((BaseListVector) list).getChildrenFromFields().get(0);
    long[] match = new long[batch.words()];
    boolean impossible = all && unmatchable > 0;
    int count = valueCount();
    if (!impossible && count > 0) {
      long[] itemKeys = null;
      ByteRows itemBytes = null;
      int itemCount = items.getValueCount();
      if (keys != null) {
        itemKeys = Keys.decode(items, itemKind, itemCount);
      } else {
        itemBytes = ByteRows.of(items, itemKind);
      }
      boolean[] seen = new boolean[count];
      for (int row = 0; row < batch.rows(); row++) {
        if (list.isNull(row)) {
          continue;
        }
        long start = start(list, row);
        long end = start(list, row + 1);
        Arrays.fill(seen, false);
        int found = 0;
        for (long j = start; j < end && (all ? found < count : found == 0); j++) {
          int item = Math.toIntExact(j);
          if (items.isNull(item)) {
            continue;
          }
          int at = itemKeys != null ? index(itemKeys[item]) : index(itemBytes, item);
          if (at >= 0 && !seen[at]) {
            seen[at] = true;
            found++;
          }
        }
        if (all ? found == count : found > 0) {
          match[row >>> 6] |= 1L << (row & 63);
        }
      }
    }
    Kernel.finish(batch, slot, match, false, isTrue, isUnknown);
  }

  private static long start(FieldVector list, int row) {
    if (list instanceof LargeListVector large) {
      return large.getOffsetBuffer().getLong((long) row * LargeListVector.OFFSET_WIDTH);
    }
    return ((ListVector) list).getOffsetBuffer().getInt((long) row * ListVector.OFFSET_WIDTH);
  }

  private int index(long key) {
    int at = Arrays.binarySearch(keys, key);
    return at >= 0 ? at : -1;
  }

  private int index(ByteRows rows, int item) {
    int length = rows.load(item);
    for (int i = 0; i < bytes.size(); i++) {
      byte[] v = bytes.get(i);
      if (v.length == length && Arrays.equals(v, 0, length, rows.bytes, 0, length)) {
        return i;
      }
    }
    return -1;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ArrayContainsKernel k
        && k.slot == slot
        && k.itemKind == itemKind
        && Arrays.equals(k.keys, keys)
        && k.unmatchable == unmatchable
        && k.all == all
        && (k.bytes == null
            ? bytes == null
            : bytes != null
                && k.bytes.size() == bytes.size()
                && java.util.stream.IntStream.range(0, bytes.size())
                    .allMatch(i -> Arrays.equals(k.bytes.get(i), bytes.get(i))));
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(slot, itemKind, Arrays.hashCode(keys), unmatchable, all);
  }

  @Override
  public String toString() {
    return (all ? "array_has_all(" : "array_has_any(")
        + "slot "
        + slot
        + ", "
        + (keys != null ? Arrays.toString(keys) : bytes.size() + " values")
        + ")";
  }
}
