package dev.lancelot.engine.index.vector;

import java.io.Serializable;

/**
 * The IVF part of a {@link VectorIndexSpec}, with Lance 7's defaults ({@link #DEFAULTS}).
 *
 * @param numPartitions IVF partitions; 0 = Lance's rule ({@link VectorIndexSpec#partitionsFor})
 * @param sampleRate training sample rate (256): IVF trains on {@code numPartitions × sampleRate}
 *     rows, PQ and SQ on {@code 256 × sampleRate}
 * @param maxIters k-means iterations (50) of IVF and PQ training
 */
public record IvfParams(int numPartitions, int sampleRate, int maxIters) implements Serializable {
  public static final IvfParams DEFAULTS = new IvfParams(0, 256, 50);

  public IvfParams withNumPartitions(int n) {
    return new IvfParams(n, sampleRate, maxIters);
  }

  public IvfParams withSampleRate(int rate) {
    return new IvfParams(numPartitions, rate, maxIters);
  }

  public IvfParams withMaxIters(int iters) {
    return new IvfParams(numPartitions, sampleRate, iters);
  }
}
