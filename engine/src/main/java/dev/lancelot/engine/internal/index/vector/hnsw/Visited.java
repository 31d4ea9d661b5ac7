package dev.lancelot.engine.internal.index.vector.hnsw;

/** A visited set cleared in O(1) by bumping an epoch, like Lance's {@code VisitedGenerator}. */
final class Visited {
  private int[] marks = new int[0];
  private int epoch;
  private int count;

  void reset(int size) {
    if (marks.length < size) {
      marks = new int[size];
      epoch = 0;
    }
    if (++epoch == Integer.MAX_VALUE) {
      java.util.Arrays.fill(marks, 0);
      epoch = 1;
    }
    count = 0;
  }

  /** Marks {@code node}; returns {@code false} if it was already marked. */
  boolean add(int node) {
    if (marks[node] == epoch) {
      return false;
    }
    marks[node] = epoch;
    count++;
    return true;
  }

  int count() {
    return count;
  }
}
