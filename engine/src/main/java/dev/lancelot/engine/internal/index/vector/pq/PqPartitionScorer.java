package dev.lancelot.engine.internal.index.vector.pq;

/**
 * Asymmetric distance computation over one partition's transposed codes, Lance's {@code
 * compute_pq_distance}: {@code distance(row) = Σ_s table[s*256 + codes[s*rows + row]] +
 * correction}. The loop runs sub-space by sub-space over contiguous code bytes, accumulating into
 * {@code out}, with no per-row call.
 */
public final class PqPartitionScorer {
  private PqPartitionScorer() {}

  /**
   * Distances of all {@code rows} rows of a partition whose transposed codes start at {@code
   * codesOff}; {@code correction} is {@link PqCodebook#tableCorrection()}.
   */
  public static void score(
      float[] table, byte[] codes, int codesOff, int rows, int m, float correction, float[] out) {
    score(table, codes, codesOff, rows, m, correction, 0, rows, out);
  }

  /** Distances of rows {@code from .. from+count-1} into {@code out[0..count)}. */
  public static void score(
      float[] table,
      byte[] codes,
      int codesOff,
      int rows,
      int m,
      float correction,
      int from,
      int count,
      float[] out) {
    java.util.Arrays.fill(out, 0, count, correction);
    for (int s = 0; s < m; s++) {
      int base = codesOff + s * rows + from;
      int t = s * PqCodebook.NUM_CENTROIDS;
      for (int r = 0; r < count; r++) {
        out[r] += table[t + (codes[base + r] & 0xFF)];
      }
    }
  }

  /** Distance of one row (a strided walk over the transposed codes). */
  public static float scoreOne(
      float[] table, byte[] codes, int codesOff, int rows, int m, float correction, int row) {
    float sum = correction;
    for (int s = 0; s < m; s++) {
      sum += table[s * PqCodebook.NUM_CENTROIDS + (codes[codesOff + s * rows + row] & 0xFF)];
    }
    return sum;
  }
}
