package dev.lancelot.engine.internal.index.vector.kmeans;

/**
 * k-means training parameters, defaults as Lance's {@code KMeansParams} ({@code
 * lance-index/src/vector/kmeans.rs}): at most 50 iterations, stop when the loss changes by less
 * than {@code tolerance} (1e-4) relative to it, random init.
 *
 * <p>{@code balanceFactor}: Lance trains IVF centroids with a size penalty ({@code
 * with_balance_factor(1.0)} in {@code do_train_ivf_model}), divided by the number of training rows,
 * adding {@code factor × |cluster|} to each candidate distance so clusters stay balanced; PQ
 * codebooks use 0 (plain k-means).
 */
public record KMeansParams(
    int maxIters, double tolerance, float balanceFactor, KMeansInit init, long seed) {
  public static final int DEFAULT_MAX_ITERS = 50;
  public static final double DEFAULT_TOLERANCE = 1e-4;

  public KMeansParams {
    if (maxIters < 1) {
      throw new IllegalArgumentException("maxIters must be >= 1: " + maxIters);
    }
    if (!(tolerance >= 0)) {
      throw new IllegalArgumentException("tolerance must be >= 0: " + tolerance);
    }
    if (!(balanceFactor >= 0)) {
      throw new IllegalArgumentException("balanceFactor must be >= 0: " + balanceFactor);
    }
    if (init == null) {
      throw new IllegalArgumentException("init must not be null");
    }
  }

  /** How Lance trains IVF centroids: balanced k-means (factor 1.0). */
  public static KMeansParams forIvf(int maxIters, long seed) {
    return new KMeansParams(maxIters, DEFAULT_TOLERANCE, 1.0f, KMeansInit.RANDOM, seed);
  }

  /** How Lance trains a PQ sub-space codebook: plain k-means. */
  public static KMeansParams forPq(int maxIters, long seed) {
    return new KMeansParams(maxIters, DEFAULT_TOLERANCE, 0f, KMeansInit.RANDOM, seed);
  }

  public KMeansParams withSeed(long newSeed) {
    return new KMeansParams(maxIters, tolerance, balanceFactor, init, newSeed);
  }
}
