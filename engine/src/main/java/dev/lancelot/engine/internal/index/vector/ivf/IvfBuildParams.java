package dev.lancelot.engine.internal.index.vector.ivf;

import dev.lancelot.engine.vector.VectorException;

/**
 * IVF training parameters, defaults as Lance's {@code IvfBuildParams}: 50 k-means iterations and a
 * training sample of {@code numPartitions × sampleRate} rows ({@code sample_rate = 256}, "see
 * faiss"). Lance's Java builder defaults to 32 partitions; there is no default here because the
 * right number depends on the data size.
 */
public record IvfBuildParams(int numPartitions, int maxIters, int sampleRate, long seed) {
  public static final int DEFAULT_MAX_ITERS = 50;
  public static final int DEFAULT_SAMPLE_RATE = 256;

  public IvfBuildParams {
    if (numPartitions < 1) {
      throw new VectorException(
          "Cannot build IVF: num_partitions is "
              + numPartitions
              + ". Use at least 1 partition (Lance suggests about sqrt(rows)).");
    }
    if (maxIters < 1) {
      throw new VectorException(
          "Cannot build IVF: max_iters is " + maxIters + ". Use at least 1 iteration.");
    }
    if (sampleRate < 1) {
      throw new VectorException(
          "Cannot build IVF: sample_rate is "
              + sampleRate
              + ". Use a positive sample rate (Lance's default is 256).");
    }
  }

  public static IvfBuildParams of(int numPartitions, long seed) {
    return new IvfBuildParams(numPartitions, DEFAULT_MAX_ITERS, DEFAULT_SAMPLE_RATE, seed);
  }

  /** Rows the trainer samples: {@code numPartitions × sampleRate}. */
  public long sampleSize() {
    return (long) numPartitions * sampleRate;
  }
}
