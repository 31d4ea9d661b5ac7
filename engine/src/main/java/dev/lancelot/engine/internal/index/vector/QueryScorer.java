package dev.lancelot.engine.internal.index.vector;

/**
 * Distances from one query to the vectors of a {@link VectorStorage}, addressed by node id ({@code
 * 0 .. size-1}, local to the storage, e.g. an IVF partition). Smaller is closer, in the storage's
 * own metric (see {@link VectorStorage#metric()}).
 *
 * <p>Hot loops call the bulk methods, so a search makes one interface call per neighbour list or
 * block, not per vector. A scorer holds per-query state (a lookup table, an encoded query) and is
 * not thread-safe; create one per query and thread.
 */
public interface QueryScorer {
  float score(int node);

  /** {@code out[i] = score(nodes[i])} for {@code i < count}. */
  void score(int[] nodes, int count, float[] out);

  /** {@code out[i] = score(from + i)} for {@code i < count}: a contiguous scan. */
  void scoreRange(int from, int count, float[] out);
}
