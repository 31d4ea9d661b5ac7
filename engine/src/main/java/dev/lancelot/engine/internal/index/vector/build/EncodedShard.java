package dev.lancelot.engine.internal.index.vector.build;

import dev.lancelot.engine.internal.index.vector.pq.PqCodes;
import dev.lancelot.engine.internal.index.vector.store.IndexSegmentWriter;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * The rows of some fragments assigned and encoded with a trained model, by IVF partition, in scan
 * order: what an executor of a distributed build sends back to be written as one segment. Per
 * partition the row addresses and either the codes (PQ or SQ, row-major, {@code width} bytes a row;
 * RaBitQ codes with their two factors, {@code width} bytes a row as {@code RqCodes} carries them)
 * or the vectors (flat storage, {@code width} floats a row).
 *
 * @param loss sum over the encoded rows of the distance to their centroid
 * @param skipped rows left out (zero vectors of a cosine index)
 */
public record EncodedShard(
    int width, long[][] rowIds, byte[][] codes, float[][] vectors, double loss, long skipped)
    implements Serializable {
  /** Rows held. */
  public long rows() {
    long n = 0;
    for (long[] ids : rowIds) {
      n += ids.length;
    }
    return n;
  }

  /**
   * The rows of {@code shards} (of disjoint fragments, in fragment order) as one shard, partition
   * by partition in that order; a lone shard is returned as it is. Every shard must have {@code
   * numPartitions} partitions of {@code width}.
   */
  static EncodedShard concat(
      List<EncodedShard> shards, int numPartitions, int width, boolean floats) {
    for (EncodedShard s : shards) {
      if (s.rowIds.length != numPartitions || s.width != width) {
        throw new IllegalArgumentException(
            "an encoded shard of "
                + s.rowIds.length
                + " partitions and width "
                + s.width
                + " does not match the model ("
                + numPartitions
                + " partitions, width "
                + width
                + ")");
      }
    }
    if (shards.size() == 1) {
      return shards.get(0);
    }
    long[][] ids = new long[numPartitions][];
    byte[][] codes = floats ? null : new byte[numPartitions][];
    float[][] vectors = floats ? new float[numPartitions][] : null;
    double loss = 0;
    long skipped = 0;
    for (EncodedShard s : shards) {
      loss += s.loss;
      skipped += s.skipped;
    }
    for (int p = 0; p < numPartitions; p++) {
      int n = 0;
      for (EncodedShard s : shards) {
        n += s.rowIds[p].length;
      }
      ids[p] = new long[n];
      if (floats) {
        vectors[p] = new float[n * width];
      } else {
        codes[p] = new byte[n * width];
      }
      int at = 0;
      for (EncodedShard s : shards) {
        int m = s.rowIds[p].length;
        System.arraycopy(s.rowIds[p], 0, ids[p], at, m);
        if (floats) {
          System.arraycopy(s.vectors[p], 0, vectors[p], at * width, m * width);
        } else {
          System.arraycopy(s.codes[p], 0, codes[p], at * width, m * width);
        }
        at += m;
      }
    }
    return new EncodedShard(width, ids, codes, vectors, loss, skipped);
  }

  /**
   * The partitions as the segment writer takes them (PQ codes column-major when {@code
   * transposePq}).
   */
  List<IndexSegmentWriter.Partition> partitions(boolean transposePq) {
    List<IndexSegmentWriter.Partition> out = new ArrayList<>(rowIds.length);
    for (int p = 0; p < rowIds.length; p++) {
      int n = rowIds[p].length;
      if (vectors != null) {
        out.add(new IndexSegmentWriter.Partition(rowIds[p], vectors[p], null, null));
      } else {
        out.add(
            new IndexSegmentWriter.Partition(
                rowIds[p],
                null,
                transposePq ? PqCodes.transpose(codes[p], n, width) : codes[p],
                null));
      }
    }
    return out;
  }
}
