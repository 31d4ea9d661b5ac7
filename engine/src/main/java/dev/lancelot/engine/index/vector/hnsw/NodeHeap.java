package dev.lancelot.engine.index.vector.hnsw;

import java.util.Arrays;

/**
 * A binary heap of (node, distance) on flat arrays, ordered by distance then node id, either
 * min-first (search frontier) or max-first (bounded result list). Reused across searches.
 */
final class NodeHeap {
  private final boolean maxFirst;
  private int[] nodes;
  private float[] dists;
  private int size;

  NodeHeap(int capacity, boolean maxFirst) {
    this.maxFirst = maxFirst;
    this.nodes = new int[Math.max(capacity, 8)];
    this.dists = new float[nodes.length];
  }

  int size() {
    return size;
  }

  void clear() {
    size = 0;
  }

  int topNode() {
    return nodes[0];
  }

  float topDistance() {
    return dists[0];
  }

  /** {@code true} if (a, da) belongs nearer the top than (b, db). */
  private boolean above(int a, float da, int b, float db) {
    int c = Float.compare(da, db);
    if (c == 0) {
      c = Integer.compare(a, b);
    }
    return maxFirst ? c > 0 : c < 0;
  }

  void push(int node, float dist) {
    if (size == nodes.length) {
      nodes = Arrays.copyOf(nodes, size * 2);
      dists = Arrays.copyOf(dists, size * 2);
    }
    int i = size++;
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (!above(node, dist, nodes[parent], dists[parent])) {
        break;
      }
      nodes[i] = nodes[parent];
      dists[i] = dists[parent];
      i = parent;
    }
    nodes[i] = node;
    dists[i] = dist;
  }

  /** Removes the top; read it first with {@link #topNode()} / {@link #topDistance()}. */
  void pop() {
    int last = --size;
    if (last > 0) {
      siftDown(nodes[last], dists[last], last);
    }
  }

  /** Replaces the top with (node, dist). */
  void replaceTop(int node, float dist) {
    siftDown(node, dist, size);
  }

  private void siftDown(int node, float dist, int n) {
    int i = 0;
    while (true) {
      int left = 2 * i + 1;
      if (left >= n) {
        break;
      }
      int right = left + 1;
      int child =
          right < n && above(nodes[right], dists[right], nodes[left], dists[left]) ? right : left;
      if (!above(nodes[child], dists[child], node, dist)) {
        break;
      }
      nodes[i] = nodes[child];
      dists[i] = dists[child];
      i = child;
    }
    nodes[i] = node;
    dists[i] = dist;
  }

  /** Empties a max-first heap into {@code outNodes/outDists} nearest first; returns the count. */
  int drainAscending(int[] outNodes, float[] outDists) {
    int n = size;
    for (int i = n - 1; i >= 0; i--) {
      outNodes[i] = nodes[0];
      outDists[i] = dists[0];
      pop();
    }
    return n;
  }
}
