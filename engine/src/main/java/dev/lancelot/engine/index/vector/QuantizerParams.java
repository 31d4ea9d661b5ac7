package dev.lancelot.engine.index.vector;

import java.io.Serializable;

/**
 * The quantizer part of a {@link VectorIndexSpec} (PQ, SQ and RaBitQ), with Lance 7's defaults
 * ({@link #DEFAULTS}; {@link VectorIndexSpec#of} gives IVF_RQ 1 bit per dimension).
 *
 * @param numSubVectors PQ sub-vectors (16); must divide the dimension; ignored by SQ and RaBitQ
 * @param numBits code width of PQ and SQ (8, the only width implemented); bits per dimension of
 *     IVF_RQ (1 to 255)
 */
public record QuantizerParams(int numSubVectors, int numBits) implements Serializable {
  public static final QuantizerParams DEFAULTS = new QuantizerParams(16, 8);

  public QuantizerParams withNumSubVectors(int n) {
    return new QuantizerParams(n, numBits);
  }

  public QuantizerParams withNumBits(int bits) {
    return new QuantizerParams(numSubVectors, bits);
  }
}
