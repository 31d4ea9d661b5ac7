package dev.lancelot.engine.index.vector;

import java.util.Arrays;

/**
 * Which node ids a search may return (a prefilter turned into node ids of one storage). A plain
 * bitset: a final class so membership tests inline in search loops. Searches still traverse
 * rejected nodes (a graph needs them as stepping stones) but never return them. A {@code null}
 * mask means "accept all". Mutable while being filled; treat it as read-only once searches use it.
 */
public final class AcceptMask {
  private final long[] words;
  private final int size;

  private AcceptMask(int size) {
    if (size < 0) {
      throw new IllegalArgumentException("size must be >= 0: " + size);
    }
    this.size = size;
    this.words = new long[(size + 63) >>> 6];
  }

  /** A mask over {@code size} nodes accepting none; add nodes with {@link #set}. */
  public static AcceptMask none(int size) {
    return new AcceptMask(size);
  }

  /** A mask over {@code size} nodes accepting all; remove nodes with {@link #clear}. */
  public static AcceptMask all(int size) {
    AcceptMask m = new AcceptMask(size);
    Arrays.fill(m.words, -1L);
    if ((size & 63) != 0) {
      m.words[m.words.length - 1] = (1L << size) - 1; // shift is mod 64: keeps the low size%64 bits
    }
    return m;
  }

  public static AcceptMask of(int size, int... nodes) {
    AcceptMask m = none(size);
    for (int n : nodes) {
      m.set(n);
    }
    return m;
  }

  public int size() {
    return size;
  }

  public boolean get(int node) {
    return (words[node >>> 6] & (1L << node)) != 0;
  }

  public void set(int node) {
    checkIndex(node);
    words[node >>> 6] |= 1L << node;
  }

  public void clear(int node) {
    checkIndex(node);
    words[node >>> 6] &= ~(1L << node);
  }

  public int cardinality() {
    int c = 0;
    for (long w : words) {
      c += Long.bitCount(w);
    }
    return c;
  }

  private void checkIndex(int node) {
    if (node < 0 || node >= size) {
      throw new IndexOutOfBoundsException("node " + node + " outside mask of size " + size);
    }
  }
}
