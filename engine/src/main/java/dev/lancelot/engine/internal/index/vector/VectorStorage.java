package dev.lancelot.engine.internal.index.vector;

import dev.lancelot.engine.vector.DistanceMetric;

/**
 * The vectors a graph or a partition scan scores against: raw float vectors ({@code FlatStorage}),
 * scalar-quantized codes ({@code SqStorage}) or product-quantized codes ({@code PqStorage}). This
 * is the seam that lets one HNSW implementation serve IVF_HNSW_FLAT, IVF_HNSW_SQ and IVF_HNSW_PQ,
 * as Lance's {@code VectorStore}.
 *
 * <p>Queries must already be in the storage's space: normalized for cosine indexes and, for PQ on
 * l2/cosine, the residual against the partition's centroid. Implementations are immutable and
 * thread-safe; the scorers they hand out are not.
 */
public interface VectorStorage {
  /** Number of stored vectors; node ids are {@code 0 .. size()-1}. */
  int size();

  int dimension();

  /**
   * The metric of the distances scorers return, as Lance computes them for this storage: for cosine
   * indexes PQ and SQ storages compute l2 on unit vectors (= 2 × cosine distance).
   */
  DistanceMetric metric();

  QueryScorer scorer(float[] query);

  /** A scorer whose query is stored node {@code node} (used while building a graph). */
  QueryScorer nodeScorer(int node);

  /** Distance between two stored nodes (used by the neighbour-selection heuristic). */
  float distanceBetween(int a, int b);

  /**
   * {@code out[i] = distanceBetween(a, others[from + i])} for {@code i < count}: the
   * neighbour-selection heuristic tests a candidate against a few kept neighbours at a time.
   */
  default void distancesBetween(int a, int[] others, int from, int count, float[] out) {
    for (int i = 0; i < count; i++) {
      out[i] = distanceBetween(a, others[from + i]);
    }
  }
}
