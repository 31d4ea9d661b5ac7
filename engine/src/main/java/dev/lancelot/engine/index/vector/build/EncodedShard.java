package dev.lancelot.engine.index.vector.build;

import java.io.Serializable;

/**
 * The rows of some fragments assigned and encoded with a trained model, by IVF partition, in scan
 * order: what an executor of a distributed build sends back to be written as one segment. Per
 * partition the row addresses and either the codes (PQ or SQ, row-major, {@code width} bytes a
 * row) or the vectors (flat storage, {@code width} floats a row).
 *
 * @param loss sum over the encoded rows of the distance to their centroid
 * @param skipped rows left out (zero vectors of a cosine index)
 */
public record EncodedShard(int width, long[][] rowIds, byte[][] codes, float[][] vectors, double loss, long skipped)
    implements Serializable {
  /** Rows held. */
  public long rows() {
    long n = 0;
    for (long[] ids : rowIds) {
      n += ids.length;
    }
    return n;
  }
}
