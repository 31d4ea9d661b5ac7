package dev.lancelot.engine.internal.index.vector.hnsw;

import java.util.Arrays;

/**
 * A binary heap of (node, distance) ordered by distance ({@link Float#compare} order) then node id,
 * either min-first (search frontier) or max-first (bounded result list). Reused across searches.
 *
 * <p>Each entry is one {@code long} whose signed order is the heap's order: the distance's bits
 * made sortable as a signed int in the high half, the node id (never negative) in the low half, and
 * every bit inverted for a max-first heap. A comparison is then one instruction on one array, which
 * matters because graph builds and searches spend much of their time here.
 */
final class NodeHeap {
  private final boolean maxFirst;
  private long[] keys;
  private int size;

  NodeHeap(int capacity, boolean maxFirst) {
    this.maxFirst = maxFirst;
    this.keys = new long[Math.max(capacity, 8)];
  }

  int size() {
    return size;
  }

  void clear() {
    size = 0;
  }

  int topNode() {
    return node(keys[0]);
  }

  float topDistance() {
    return distance(keys[0]);
  }

  /** The key of (node, dist): smaller keys belong nearer the top. */
  private long key(int node, float dist) {
    int bits = Float.floatToIntBits(dist);
    bits ^= (bits >> 31) & 0x7fffffff; // negative floats: larger magnitude sorts lower
    long k = ((long) bits << 32) | node;
    return maxFirst ? ~k : k;
  }

  private int node(long key) {
    return (int) (maxFirst ? ~key : key);
  }

  private float distance(long key) {
    int bits = (int) ((maxFirst ? ~key : key) >>> 32);
    bits ^= (bits >> 31) & 0x7fffffff;
    return Float.intBitsToFloat(bits);
  }

  void push(int node, float dist) {
    if (size == keys.length) {
      keys = Arrays.copyOf(keys, size * 2);
    }
    long k = key(node, dist);
    int i = size++;
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      long p = keys[parent];
      if (k >= p) {
        break;
      }
      keys[i] = p;
      i = parent;
    }
    keys[i] = k;
  }

  /** Removes the top; read it first with {@link #topNode()} / {@link #topDistance()}. */
  void pop() {
    int last = --size;
    if (last > 0) {
      siftDown(keys[last], last);
    }
  }

  /** Replaces the top with (node, dist). */
  void replaceTop(int node, float dist) {
    siftDown(key(node, dist), size);
  }

  private void siftDown(long k, int n) {
    int i = 0;
    while (true) {
      int left = 2 * i + 1;
      if (left >= n) {
        break;
      }
      int right = left + 1;
      int child = right < n && keys[right] < keys[left] ? right : left;
      long c = keys[child];
      if (c >= k) {
        break;
      }
      keys[i] = c;
      i = child;
    }
    keys[i] = k;
  }

  /** Empties a max-first heap into {@code outNodes/outDists} nearest first; returns the count. */
  int drainAscending(int[] outNodes, float[] outDists) {
    int n = size;
    for (int i = n - 1; i >= 0; i--) {
      outNodes[i] = topNode();
      outDists[i] = topDistance();
      pop();
    }
    return n;
  }
}
