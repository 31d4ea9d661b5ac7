package dev.lancelot.engine.internal.index.vector;

import java.util.Arrays;
import java.util.function.LongPredicate;

/**
 * Which node ids a search may return (a prefilter turned into node ids of one storage). A plain
 * bitset: a final class so membership tests inline in search loops. Searches still traverse
 * rejected nodes (a graph needs them as stepping stones) but never return them. A {@code null} mask
 * means "accept all". Mutable while being filled; treat it as read-only once searches use it.
 *
 * <p>A {@link #lazy} mask asks a row predicate about node {@code i} (row {@code rowIds[i]}) the
 * first time {@link #get} needs it and remembers the answer, so a search that looks at few nodes (a
 * graph walk, a scan whose candidates mostly lose to the current top k) tests few rows instead of
 * every row of the partition. Not thread-safe.
 */
public final class AcceptMask {
  private final long[] words;
  private final int size;
  private final LongPredicate source;
  private final long[] rowIds;
  private final long[] known;

  private AcceptMask(int size) {
    this(size, null, null);
  }

  private AcceptMask(int size, LongPredicate source, long[] rowIds) {
    if (size < 0) {
      throw new IllegalArgumentException("size must be >= 0: " + size);
    }
    this.size = size;
    this.words = new long[(size + 63) >>> 6];
    this.source = source;
    this.rowIds = rowIds;
    this.known = source == null ? null : new long[words.length];
  }

  /**
   * A mask over {@code rowIds.length} nodes accepting node {@code i} when {@code
   * accept.test(rowIds[i])}, evaluated on demand (at most once per node).
   */
  public static AcceptMask lazy(long[] rowIds, LongPredicate accept) {
    if (accept == null || rowIds == null) {
      throw new IllegalArgumentException("a lazy mask needs row ids and a predicate");
    }
    return new AcceptMask(rowIds.length, accept, rowIds);
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
    int w = node >>> 6;
    long bit = 1L << node;
    if (known != null && (known[w] & bit) == 0) {
      known[w] |= bit;
      if (source.test(rowIds[node])) {
        words[w] |= bit;
      }
    }
    return (words[w] & bit) != 0;
  }

  public void set(int node) {
    checkIndex(node);
    words[node >>> 6] |= 1L << node;
    if (known != null) {
      known[node >>> 6] |= 1L << node;
    }
  }

  public void clear(int node) {
    checkIndex(node);
    words[node >>> 6] &= ~(1L << node);
    if (known != null) {
      known[node >>> 6] |= 1L << node;
    }
  }

  /** Accepted nodes (a lazy mask evaluates every node it has not yet). */
  public int cardinality() {
    if (known != null) {
      for (int node = 0; node < size; node++) {
        get(node);
      }
    }
    int c = 0;
    for (long w : words) {
      c += Long.bitCount(w);
    }
    return c;
  }

  /**
   * Whether at least {@code n} nodes are accepted; a lazy mask evaluates nodes in id order only
   * until it knows (all of them when fewer than {@code n} pass).
   */
  public boolean atLeast(long n) {
    if (n <= 0) {
      return true;
    }
    long c = 0;
    if (known == null) {
      for (long w : words) {
        c += Long.bitCount(w);
        if (c >= n) {
          return true;
        }
      }
      return false;
    }
    for (int node = 0; node < size; node++) {
      if (get(node) && ++c >= n) {
        return true;
      }
    }
    return false;
  }

  private void checkIndex(int node) {
    if (node < 0 || node >= size) {
      throw new IndexOutOfBoundsException("node " + node + " outside mask of size " + size);
    }
  }
}
