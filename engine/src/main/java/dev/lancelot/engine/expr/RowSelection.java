package dev.lancelot.engine.expr;

import dev.lancelot.engine.internal.expr.eval.Bits;
import java.util.Arrays;
import org.roaringbitmap.RoaringBitmap;

/**
 * The rows of one batch that a predicate selects, as a bitset over row positions {@code 0 ..
 * rowCount()-1}.
 *
 * <p>Layout ({@link #toWords()}): {@code long[ceil(rowCount / 64)]}; row {@code i} is bit {@code i
 * & 63} (least significant first) of word {@code i >>> 6} — the layout of an Arrow validity bitmap
 * read as little-endian longs. Bits at and past {@code rowCount} are zero.
 *
 * <p>For a prefilter mask over a fragment, {@link #toRoaringBitmap(int)} shifts the positions by
 * the batch's offset within the fragment; row addresses are then {@code (fragmentId << 32) |
 * position}. Immutable and thread-safe.
 */
public final class RowSelection {
  private final long[] words;
  private final int rowCount;

  private RowSelection(long[] words, int rowCount) {
    this.words = words;
    this.rowCount = rowCount;
  }

  /** A selection from words in the layout above (copied; bits past {@code rowCount} ignored). */
  public static RowSelection ofWords(long[] words, int rowCount) {
    if (rowCount < 0 || words.length != Bits.words(rowCount)) {
      throw new IllegalArgumentException(
          "need "
              + Bits.words(Math.max(rowCount, 0))
              + " words for "
              + rowCount
              + " rows, got "
              + words.length);
    }
    long[] copy = words.clone();
    Bits.clearTail(copy, rowCount);
    return new RowSelection(copy, rowCount);
  }

  /** Takes ownership of {@code words}, which must already be in the layout above. */
  static RowSelection wrap(long[] words, int rowCount) {
    return new RowSelection(words, rowCount);
  }

  public static RowSelection all(int rowCount) {
    return new RowSelection(Bits.allSet(rowCount), rowCount);
  }

  public static RowSelection none(int rowCount) {
    return new RowSelection(new long[Bits.words(rowCount)], rowCount);
  }

  /** Number of rows in the batch (selected or not). */
  public int rowCount() {
    return rowCount;
  }

  /** Number of selected rows. */
  public int cardinality() {
    return Bits.cardinality(words);
  }

  public boolean isEmpty() {
    for (long w : words) {
      if (w != 0) {
        return false;
      }
    }
    return true;
  }

  public boolean isSelected(int row) {
    if (row < 0 || row >= rowCount) {
      throw new IndexOutOfBoundsException("row " + row + " of " + rowCount);
    }
    return (words[row >>> 6] & (1L << row)) != 0;
  }

  /** Rows selected in both. */
  public RowSelection and(RowSelection other) {
    requireSameSize(other);
    long[] out = new long[words.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = words[i] & other.words[i];
    }
    return new RowSelection(out, rowCount);
  }

  /** Rows selected in either. */
  public RowSelection or(RowSelection other) {
    requireSameSize(other);
    long[] out = new long[words.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = words[i] | other.words[i];
    }
    return new RowSelection(out, rowCount);
  }

  private void requireSameSize(RowSelection other) {
    if (other.rowCount != rowCount) {
      throw new IllegalArgumentException(
          "selections over " + rowCount + " and " + other.rowCount + " rows");
    }
  }

  /** A copy of the words (layout in the class comment). */
  public long[] toWords() {
    return words.clone();
  }

  /** The selection as a {@link java.util.BitSet} (same bit layout, so a cheap copy). */
  public java.util.BitSet toBitSet() {
    return java.util.BitSet.valueOf(words);
  }

  /** The selected row positions, ascending. */
  public int[] toRowIndexes() {
    int[] out = new int[cardinality()];
    int n = 0;
    for (int w = 0; w < words.length; w++) {
      long word = words[w];
      while (word != 0) {
        out[n++] = (w << 6) + Long.numberOfTrailingZeros(word);
        word &= word - 1;
      }
    }
    return out;
  }

  /** The selected positions as a bitmap. */
  public RoaringBitmap toRoaringBitmap() {
    return toRoaringBitmap(0);
  }

  /**
   * The selected positions plus {@code offset} (the batch's first row within its fragment), as a
   * bitmap of unsigned 32-bit positions.
   */
  public RoaringBitmap toRoaringBitmap(int offset) {
    int[] rows = toRowIndexes();
    if (offset != 0) {
      for (int i = 0; i < rows.length; i++) {
        rows[i] += offset;
      }
    }
    RoaringBitmap bitmap = new RoaringBitmap();
    bitmap.addN(rows, 0, rows.length);
    return bitmap;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RowSelection s && s.rowCount == rowCount && Arrays.equals(s.words, words);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(words) * 31 + rowCount;
  }

  @Override
  public String toString() {
    int[] rows = toRowIndexes();
    String shown = Arrays.toString(rows.length <= 20 ? rows : Arrays.copyOf(rows, 20));
    return "RowSelection["
        + rows.length
        + " of "
        + rowCount
        + ": "
        + (rows.length <= 20 ? shown : shown.replace("]", ", ...]"))
        + "]";
  }
}
