package dev.lancelot.engine.index.vector.build;

import dev.lancelot.engine.index.vector.pq.PqCodes;
import dev.lancelot.engine.index.vector.store.IndexSegmentWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Gathers encoded rows by partition while the column streams by: per partition a growing
 * {@code long[]} of row addresses and a growing {@code byte[]} of codes (PQ or SQ, row-major) or
 * {@code float[]} of vectors (flat). Holds codes, not raw vectors, for quantized indexes.
 */
final class PartitionAccumulator {
  private final int width;
  private final boolean floats;
  private final boolean transposeAtEnd;
  private final long[][] ids;
  private final byte[][] codes;
  private final float[][] vectors;
  private final int[] sizes;

  PartitionAccumulator(int numPartitions, int width, boolean floats, boolean transposeAtEnd) {
    this.width = width;
    this.floats = floats;
    this.transposeAtEnd = transposeAtEnd;
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

  /** Appends every row of partition {@code p} of {@code shard}, in order. */
  void addAll(EncodedShard shard, int p) {
    long[] rowIds = shard.rowIds()[p];
    int add = rowIds.length;
    int n = sizes[p];
    if (n + add > ids[p].length) {
      int cap = Math.max(n + add, ids[p].length * 2);
      ids[p] = Arrays.copyOf(ids[p], cap);
      if (floats) {
        vectors[p] = Arrays.copyOf(vectors[p], cap * width);
      } else {
        codes[p] = Arrays.copyOf(codes[p], cap * width);
      }
    }
    System.arraycopy(rowIds, 0, ids[p], n, add);
    if (floats) {
      System.arraycopy(shard.vectors()[p], 0, vectors[p], n * width, add * width);
    } else {
      System.arraycopy(shard.codes()[p], 0, codes[p], n * width, add * width);
    }
    sizes[p] = n + add;
  }

  /** A copy of what was gathered, untransposed, as a shard (the buffers stay usable). */
  EncodedShard shard(double loss, long skipped) {
    int n = sizes.length;
    long[][] outIds = new long[n][];
    byte[][] outCodes = floats ? null : new byte[n][];
    float[][] outVectors = floats ? new float[n][] : null;
    for (int p = 0; p < n; p++) {
      outIds[p] = Arrays.copyOf(ids[p], sizes[p]);
      if (floats) {
        outVectors[p] = Arrays.copyOf(vectors[p], sizes[p] * width);
      } else {
        outCodes[p] = Arrays.copyOf(codes[p], sizes[p] * width);
      }
    }
    return new EncodedShard(width, outIds, outCodes, outVectors, loss, skipped);
  }

  int numPartitions() {
    return sizes.length;
  }

  long rows() {
    long n = 0;
    for (int s : sizes) {
      n += s;
    }
    return n;
  }

  /** The partitions as the segment writer takes them (PQ codes transposed); releases the buffers. */
  List<IndexSegmentWriter.Partition> finish() {
    List<IndexSegmentWriter.Partition> out = new ArrayList<>(sizes.length);
    for (int p = 0; p < sizes.length; p++) {
      int n = sizes[p];
      long[] rowIds = Arrays.copyOf(ids[p], n);
      ids[p] = null;
      if (floats) {
        out.add(new IndexSegmentWriter.Partition(rowIds, Arrays.copyOf(vectors[p], n * width), null, null));
        vectors[p] = null;
      } else {
        byte[] c = Arrays.copyOf(codes[p], n * width);
        codes[p] = null;
        out.add(new IndexSegmentWriter.Partition(rowIds, null, transposeAtEnd ? PqCodes.transpose(c, n, width) : c,
            null));
      }
    }
    return out;
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
