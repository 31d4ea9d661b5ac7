package dev.lancelot.engine.internal.expr.eval;

import org.apache.arrow.memory.ArrowBuf;

/**
 * Row bitsets as {@code long[]} words: row {@code i} is bit {@code i & 63} of word {@code i >>> 6},
 * the layout of Arrow validity bitmaps read as little-endian longs. Bits at and beyond the row
 * count are always zero.
 */
public final class Bits {
  private Bits() {}

  public static int words(int rows) {
    return (rows + 63) >>> 6;
  }

  /** Mask of the valid bits in the last word. */
  public static long tailMask(int rows) {
    int r = rows & 63;
    return r == 0 ? -1L : (1L << r) - 1;
  }

  public static void clearTail(long[] words, int rows) {
    if (words.length > 0) {
      words[words.length - 1] &= tailMask(rows);
    }
  }

  public static long[] allSet(int rows) {
    long[] w = new long[words(rows)];
    java.util.Arrays.fill(w, -1L);
    clearTail(w, rows);
    return w;
  }

  /** The first {@code rows} bits of an Arrow bitmap (LSB-first bytes, no offset). */
  public static long[] read(ArrowBuf buf, int rows) {
    long bytes = (rows + 7L) >>> 3;
    if (buf.capacity() < bytes) {
      throw new IllegalStateException(
          "bitmap of " + buf.capacity() + " bytes is too short for " + rows + " rows");
    }
    long[] out = new long[words(rows)];
    for (int w = 0; w < out.length; w++) {
      long at = (long) w << 3;
      if (at + 8 <= buf.capacity()) {
        out[w] = buf.getLong(at);
      } else {
        long v = 0;
        for (long b = at; b < bytes; b++) {
          v |= (buf.getByte(b) & 0xFFL) << ((b - at) << 3);
        }
        out[w] = v;
      }
    }
    clearTail(out, rows);
    return out;
  }

  public static int cardinality(long[] words) {
    int n = 0;
    for (long w : words) {
      n += Long.bitCount(w);
    }
    return n;
  }
}
