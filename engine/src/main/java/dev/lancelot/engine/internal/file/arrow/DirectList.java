package dev.lancelot.engine.internal.file.arrow;

import dev.lancelot.engine.internal.file.codec.DecodeException;
import dev.lancelot.engine.internal.file.repdef.CanonicalLevels;
import java.util.Arrays;

/**
 * The offsets and validity of a top-level list whose items are the leaf itself (canonical layers
 * item/list, e.g. {@code list<int32>}), built as the levels arrive instead of being buffered and
 * unravelled at the end. Canonical levels of such a column: 0 valid item, 1 null item, 2 null list,
 * 3 empty list; an entry with repetition level 1 starts a list (a row), one with 0 adds an item to
 * the current list.
 */
final class DirectList {
  private static final int NULL_LIST = 2;
  private static final int EMPTY_LIST = 3;

  /** Levels below this one have an item behind them. */
  private static final int FIRST_SPECIAL = 2;

  /** Offsets of the lists so far ({@code lists + 1} of them valid once finished). */
  private int[] offsets;

  /** 1 per valid list, 0 per null one. */
  private byte[] valid;

  private int lists;
  private int items;

  DirectList(int capacity) {
    int c = Math.max(capacity, 16) + 1;
    this.offsets = new int[c];
    this.valid = new byte[c];
  }

  /** Whether a column with these canonical levels is such a list. */
  static boolean applies(CanonicalLevels scheme) {
    return scheme.numLayers() == 2 && !scheme.isList(0) && scheme.isList(1);
  }

  /** Makes room for {@code n} more lists. */
  void reserve(int n) {
    long needed = (long) lists + n + 1;
    if (needed > offsets.length && needed <= Integer.MAX_VALUE - 8) {
      offsets = Arrays.copyOf(offsets, (int) needed);
      valid = Arrays.copyOf(valid, (int) needed);
    }
  }

  private void ensure(int n) {
    long needed = (long) lists + n + 1;
    if (needed > offsets.length) {
      if (needed > Integer.MAX_VALUE - 8) {
        throw DecodeException.unsupported("more than 2^31 lists in one batch");
      }
      int c = (int) Math.min(Integer.MAX_VALUE - 8, Math.max(needed, 2L * offsets.length));
      offsets = Arrays.copyOf(offsets, c);
      valid = Arrays.copyOf(valid, c);
    }
  }

  /** Level entries {@code [from, from + n)}; a null {@code rep} or {@code def} stands for zeros. */
  void levels(short[] rep, short[] def, int from, int n) {
    if (rep == null) {
      throw DecodeException.corrupt("list levels without repetition levels");
    }
    ensure(n);
    int[] off = offsets;
    byte[] val = valid;
    int l = lists;
    int current = items;
    for (int i = from; i < from + n; i++) {
      int r = rep[i];
      int d = def == null ? 0 : def[i];
      if (r != 0) {
        if (d > EMPTY_LIST || r != 1) {
          throw DecodeException.corrupt(
              "level (rep " + r + ", def " + d + ") out of range for a list column");
        }
        off[l] = current;
        val[l] = (byte) (d == NULL_LIST ? 0 : 1);
        l++;
        current += d < FIRST_SPECIAL ? 1 : 0;
      } else {
        if (d >= FIRST_SPECIAL) {
          throw DecodeException.corrupt("a null or empty list continuing a list");
        }
        current++;
      }
    }
    lists = l;
    items = current;
  }

  /**
   * Level entries of a list page given by their row starts: the lists starting at entries {@code
   * rowStarts[firstStart..endStart)}, with {@code rowItems} the items before each of those entries,
   * and the items {@code [fromItem, toItem)} of the span. {@code def} (canonical, null for zeros)
   * gives each list's validity.
   */
  void rows(
      short[] def,
      int[] rowStarts,
      int[] rowItems,
      int firstStart,
      int endStart,
      int fromItem,
      int toItem) {
    int n = endStart - firstStart;
    ensure(n);
    int base = items - fromItem;
    System.arraycopy(rowItems, firstStart, offsets, lists, n);
    int[] off = offsets;
    int l = lists;
    for (int j = 0; j < n; j++) {
      off[l + j] += base;
    }
    if (def == null) {
      Arrays.fill(valid, l, l + n, (byte) 1);
    } else {
      byte[] val = valid;
      for (int j = 0; j < n; j++) {
        int d = def[rowStarts[firstStart + j]];
        val[l + j] = (byte) (1 - isZero(d - NULL_LIST));
      }
    }
    lists = l + n;
    items += toItem - fromItem;
  }

  private static int isZero(int x) {
    return ((x - 1) & ~x) >>> 31;
  }

  int lists() {
    return lists;
  }

  int items() {
    return items;
  }

  /** The {@code lists + 1} offsets (the array may be longer). */
  int[] offsets() {
    offsets[lists] = items;
    return offsets;
  }

  /** Validity bitmap (LSB first) and null count. */
  byte[] bits() {
    byte[] bits = new byte[(lists + 8) / 8];
    for (int j = 0; j < lists; j++) {
      bits[j >>> 3] |= (byte) (valid[j] << (j & 7));
    }
    return bits;
  }

  int nulls() {
    int nulls = 0;
    for (int j = 0; j < lists; j++) {
      nulls += 1 - valid[j];
    }
    return nulls;
  }
}
