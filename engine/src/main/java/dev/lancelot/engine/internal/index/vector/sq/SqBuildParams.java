package dev.lancelot.engine.internal.index.vector.sq;

import dev.lancelot.engine.vector.VectorException;

/**
 * SQ training parameters, defaults as Lance's {@code SQBuildParams}: 8 bits and a sample of {@code
 * sampleRate × 2^numBits} rows ({@code sample_rate = 256}). Only 8 bits are implemented.
 */
public record SqBuildParams(int numBits, int sampleRate, long seed) {
  public SqBuildParams {
    if (numBits != 8) {
      throw new VectorException(
          "Cannot build SQ with num_bits="
              + numBits
              + ": only 8-bit scalar quantization is implemented. Use num_bits=8.");
    }
    if (sampleRate < 1) {
      throw new VectorException(
          "Cannot build SQ: sample_rate is "
              + sampleRate
              + ". Use a positive sample rate (Lance's default is 256).");
    }
  }

  public static SqBuildParams of(long seed) {
    return new SqBuildParams(8, 256, seed);
  }

  public long sampleSize() {
    return (long) sampleRate << numBits;
  }
}
