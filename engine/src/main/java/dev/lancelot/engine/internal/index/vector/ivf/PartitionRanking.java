package dev.lancelot.engine.internal.index.vector.ivf;

/**
 * Partitions ordered nearest first for one query, with the query-centroid distances ({@code
 * dist_q_c} in Lance). Ties are ordered by partition id. Arrays owned by the ranking; do not
 * modify.
 */
public record PartitionRanking(int[] partitions, float[] distances) {
  public int size() {
    return partitions.length;
  }
}
