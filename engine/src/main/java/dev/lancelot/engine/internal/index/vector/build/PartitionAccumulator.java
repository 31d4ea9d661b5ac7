package dev.lancelot.engine.internal.index.vector.build;

import java.util.Arrays;

/**
 * Gathers encoded rows by partition while the column streams by: per partition a growing {@code
 * long[]} of row addresses and a growing {@code byte[]} of codes (PQ, SQ or RaBitQ, row-major) or
 * {@code float[]} of vectors (flat). Holds codes, not raw vectors, for quantized indexes.
 */
final class PartitionAccumulator {
  private final int width;
  private final boolean floats;
  private final long[][] ids;
  private final byte[][] codes;
  private final float[][] vectors;
  private final int[] sizes;

  PartitionAccumulator(int numPartitions, int width, boolean floats) {
    this.width = width;
    this.floats = floats;
    this.ids = new long[numPartitions][16];
    this.codes = floats ? null : new byte[numPartitions][16 * width];
    this.vectors = floats ? new float[numPartitions][16 * width] : null;
    this.sizes = new int[numPartitions];
  }

  void add(int partition, long rowAddress, byte[] src, int srcOff) {
    int n = grow(partition);
    ids[partition][n] = rowAddress;
    System.arraycopy(src, srcOff, codes[partition], n * width, width);
    sizes[partition] = n + 1;
  }

  void add(int partition, long rowAddress, float[] src, int srcOff) {
    int n = grow(partition);
    ids[partition][n] = rowAddress;
    System.arraycopy(src, srcOff, vectors[partition], n * width, width);
    sizes[partition] = n + 1;
  }

  /** What was gathered, trimmed, as a shard (row-major codes); releases the buffers. */
  EncodedShard shard(double loss, long skipped) {
    int n = sizes.length;
    long[][] outIds = new long[n][];
    byte[][] outCodes = floats ? null : new byte[n][];
    float[][] outVectors = floats ? new float[n][] : null;
    for (int p = 0; p < n; p++) {
      outIds[p] = Arrays.copyOf(ids[p], sizes[p]);
      ids[p] = null;
      if (floats) {
        outVectors[p] = Arrays.copyOf(vectors[p], sizes[p] * width);
        vectors[p] = null;
      } else {
        outCodes[p] = Arrays.copyOf(codes[p], sizes[p] * width);
        codes[p] = null;
      }
    }
    return new EncodedShard(width, outIds, outCodes, outVectors, loss, skipped);
  }

  private int grow(int p) {
    int n = sizes[p];
    if (n == ids[p].length) {
      int cap = n * 2;
      ids[p] = Arrays.copyOf(ids[p], cap);
      if (floats) {
        vectors[p] = Arrays.copyOf(vectors[p], cap * width);
      } else {
        codes[p] = Arrays.copyOf(codes[p], cap * width);
      }
    }
    return n;
  }
}
