package dev.lancelot.engine.internal.index.vector.ivf;

import dev.lancelot.engine.internal.index.vector.kmeans.BinaryKMeans;
import dev.lancelot.engine.internal.index.vector.kmeans.KMeansParams;
import dev.lancelot.engine.internal.index.vector.kmeans.Sampling;
import dev.lancelot.engine.vector.VectorException;
import dev.lancelot.engine.vector.VectorKernels;
import dev.lancelot.engine.vector.VectorizationProvider;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * IVF centroids of binary (uint8) vectors under the hamming metric, as Lance's IVF_FLAT on {@code
 * fixed_size_list<uint8>} with {@code hamming}: centroids from k-modes ({@link BinaryKMeans},
 * balanced like the float IVF), stored as a uint8 {@code [P, bytes]} tensor. Immutable. Partitions
 * are searched with {@code FlatSearch}'s byte overload.
 */
public final class BinaryIvfModel {
  private static final VectorKernels K = VectorizationProvider.kernels();

  private final byte[] centroids;
  private final int bytes;
  private final int numPartitions;

  private BinaryIvfModel(byte[] centroids, int bytes) {
    if (bytes <= 0 || centroids.length == 0 || centroids.length % bytes != 0) {
      throw new IllegalArgumentException(
          "centroids length " + centroids.length + " is not a positive multiple of " + bytes);
    }
    this.centroids = centroids;
    this.bytes = bytes;
    this.numPartitions = centroids.length / bytes;
  }

  public static BinaryIvfModel of(byte[] centroids, int bytes) {
    return new BinaryIvfModel(centroids.clone(), bytes);
  }

  /**
   * Trains on {@code count} vectors of {@code bytes} bytes, sampling {@code numPartitions ×
   * sampleRate}.
   */
  public static BinaryIvfModel train(byte[] vectors, int count, int bytes, IvfBuildParams params) {
    String action = "train IVF with " + params.numPartitions() + " partitions";
    if (vectors == null || bytes <= 0 || (long) count * bytes != vectors.length) {
      throw new VectorException(
          "Cannot "
              + action
              + ": expected "
              + count
              + " binary vectors of "
              + bytes
              + " bytes. Pass the uint8 vectors of the column, row-major.");
    }
    if (count < params.numPartitions()) {
      throw new VectorException(
          "Cannot "
              + action
              + ": only "
              + count
              + " rows to train on. Use at most "
              + count
              + " partitions, or add rows before building the index.");
    }
    SplittableRandom random = new SplittableRandom(params.seed());
    byte[] sample = vectors;
    int n = count;
    if (count > params.sampleSize()) {
      int[] rows = Sampling.distinct(count, (int) params.sampleSize(), random);
      sample = new byte[rows.length * bytes];
      for (int i = 0; i < rows.length; i++) {
        System.arraycopy(vectors, rows[i] * bytes, sample, i * bytes, bytes);
      }
      n = rows.length;
    }
    BinaryKMeans.Result r =
        BinaryKMeans.train(
            sample,
            n,
            bytes,
            params.numPartitions(),
            KMeansParams.forIvf(params.maxIters(), random.nextLong()));
    return new BinaryIvfModel(r.centroids(), bytes);
  }

  public int numPartitions() {
    return numPartitions;
  }

  /** Bytes per vector. */
  public int bytes() {
    return bytes;
  }

  public byte[] copyCentroids() {
    return centroids.clone();
  }

  /** Partitions nearest first by hamming distance (ties by id), the first {@code maxProbes}. */
  public PartitionRanking rankPartitions(byte[] query, int maxProbes) {
    if (query.length != bytes) {
      throw new IllegalArgumentException(
          "query has " + query.length + " bytes, index has " + bytes);
    }
    long[] keys = new long[numPartitions];
    for (int p = 0; p < numPartitions; p++) {
      // Hamming distances are small non-negative integers: pack (distance, id) in one long.
      keys[p] = ((long) K.hammingDistance(query, 0, centroids, p * bytes, bytes) << 32) | p;
    }
    Arrays.sort(keys);
    int n = Math.min(Math.max(1, maxProbes), numPartitions);
    int[] ids = new int[n];
    float[] ds = new float[n];
    for (int i = 0; i < n; i++) {
      ids[i] = (int) keys[i];
      ds[i] = (float) (keys[i] >>> 32);
    }
    return new PartitionRanking(ids, ds);
  }

  /** Nearest partition of each of {@code count} vectors stored back to back (first on ties). */
  public void assign(byte[] vectors, int off, int count, int[] partitions) {
    for (int i = 0; i < count; i++) {
      int best = 0;
      int bestDist = Integer.MAX_VALUE;
      for (int p = 0; p < numPartitions; p++) {
        int d = K.hammingDistance(vectors, off + i * bytes, centroids, p * bytes, bytes);
        if (d < bestDist) {
          bestDist = d;
          best = p;
        }
      }
      partitions[i] = best;
    }
  }
}
