package dev.lancelot.engine.internal.index.vector.pq;

import dev.lancelot.engine.vector.VectorException;

/**
 * PQ training parameters, defaults as Lance's {@code PQBuildParams}: 16 sub-vectors, 8-bit codes
 * (256 centroids per sub-space), 50 k-means iterations, a sample of {@code sampleRate × 256} rows
 * ({@code sample_rate = 256}). Only 8-bit codes are implemented.
 */
public record PqBuildParams(
    int numSubVectors, int numBits, int maxIters, int sampleRate, long seed) {
  public static final int DEFAULT_NUM_SUB_VECTORS = 16;
  public static final int NUM_BITS = 8;
  public static final int NUM_CENTROIDS = 1 << NUM_BITS;

  public PqBuildParams {
    if (numSubVectors < 1) {
      throw new VectorException(
          "Cannot build PQ: num_sub_vectors is "
              + numSubVectors
              + ". Use at least 1 sub-vector (Lance's default is 16).");
    }
    if (numBits != NUM_BITS) {
      throw new VectorException(
          "Cannot build PQ with num_bits="
              + numBits
              + ": only 8-bit codes are implemented. Use num_bits=8.");
    }
    if (maxIters < 1) {
      throw new VectorException(
          "Cannot build PQ: max_iters is " + maxIters + ". Use at least 1 iteration.");
    }
    if (sampleRate < 1) {
      throw new VectorException(
          "Cannot build PQ: sample_rate is "
              + sampleRate
              + ". Use a positive sample rate (Lance's default is 256).");
    }
  }

  public static PqBuildParams of(int numSubVectors, long seed) {
    return new PqBuildParams(numSubVectors, NUM_BITS, 50, 256, seed);
  }

  /** Rows the trainer samples: {@code sampleRate × 256}. */
  public long sampleSize() {
    return (long) sampleRate * NUM_CENTROIDS;
  }

  /** Throws unless {@code dim} splits into {@link #numSubVectors()} equal sub-vectors. */
  public void checkDimension(int dim) {
    if (dim % numSubVectors != 0) {
      throw new VectorException(
          "Cannot build PQ with num_sub_vectors="
              + numSubVectors
              + " on "
              + dim
              + "-dimensional vectors: the dimension must be divisible by num_sub_vectors. Choose a divisor of "
              + dim
              + " (for example "
              + nearestDivisor(dim, numSubVectors)
              + ").");
    }
  }

  private static int nearestDivisor(int dim, int target) {
    int best = 1;
    for (int d = 1; d <= dim; d++) {
      if (dim % d == 0 && Math.abs(d - target) < Math.abs(best - target)) {
        best = d;
      }
    }
    return best;
  }
}
