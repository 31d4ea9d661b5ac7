package dev.lancelot.engine.internal.index.vector.rq;

import dev.lancelot.engine.vector.DistanceMetric;
import java.util.SplittableRandom;

/**
 * The RaBitQ quantizer of one IVF_RQ segment, as {@code storage_metadata} of its {@code
 * auxiliary.idx} describes it: vectors of {@code dimension} values are zero-padded to {@code
 * codeDim} ({@code dimension × num_bits}), rotated by {@link FastRotation} and coded one bit per
 * rotated coordinate ({@code ceil(codeDim / 8)} bytes per row). Immutable and thread-safe.
 *
 * <p>{@link #encode} codes one row as lance-core 7.0.0 does (its residual-query estimator): with
 * {@code r} the row's residual against its centroid ({@code v − c}, {@code v} normalized first for
 * cosine) and {@code x} the rotated, zero-padded {@code r}, bit {@code i} is set when {@code x[i]}
 * has a positive sign, and with {@code ip = Σ|x[i]| / √D} (the inner product of {@code x} with the
 * row's unit code vector {@code (2b − 1)/√D}) the two factors are
 *
 * <pre>
 *   l2, cosine: add = ‖v − c‖²,              scale = −2‖r‖² / ip
 *   dot:        add = (1 − v·c) + ‖c‖²,       scale = −‖r‖² / ip
 * </pre>
 *
 * ({@code scale = 0} when {@code ip = 0}), which {@link RqStorage} turns into distance estimates.
 */
public record RabitQuantizer(
    int dimension, int codeDim, int numBits, FastRotation rotation, DistanceMetric metric)
    implements java.io.Serializable {
  /** The most bits per dimension: lance-core 7 stores {@code num_bits} as a {@code u8}. */
  public static final int MAX_NUM_BITS = 255;

  public RabitQuantizer {
    if (rotation.codeDim() != codeDim || codeDim < dimension) {
      throw new IllegalArgumentException(
          "code dimension " + codeDim + " does not fit dimension " + dimension);
    }
  }

  /**
   * A new quantizer for {@code dimension}-dimensional vectors with {@code numBits} bits per
   * dimension and a random fast rotation (its signs drawn from {@code random}).
   */
  public static RabitQuantizer create(
      int dimension, int numBits, DistanceMetric metric, SplittableRandom random) {
    if (numBits < 1 || numBits > MAX_NUM_BITS) {
      throw new IllegalArgumentException("num_bits " + numBits + " outside 1.." + MAX_NUM_BITS);
    }
    int codeDim = Math.multiplyExact(dimension, numBits);
    return new RabitQuantizer(
        dimension, codeDim, numBits, FastRotation.random(codeDim, random), metric);
  }

  /** Code bytes per row. */
  public int codeBytes() {
    return (codeDim + 7) / 8;
  }

  /**
   * Bytes of one encoded row as builds carry it before it is written ({@link #encode}): the code
   * bytes, then the add and scale factors as little-endian float32.
   */
  public int rowBytes() {
    return codeBytes() + RqCodes.FACTOR_BYTES;
  }

  /**
   * Codes one row into {@code out[outOff .. outOff + rowBytes())}: {@code vector} (from {@code
   * off}, already normalized for cosine) belongs to the partition of {@code centroid}; {@code
   * scratch} holds at least {@code codeDim} floats and is overwritten.
   */
  public void encode(
      float[] vector, int off, float[] centroid, byte[] out, int outOff, float[] scratch) {
    float resNorm = 0f;
    float vc = 0f;
    float cc = 0f;
    for (int d = 0; d < dimension; d++) {
      float r = vector[off + d] - centroid[d];
      scratch[d] = r;
      resNorm += r * r;
      vc += vector[off + d] * centroid[d];
      cc += centroid[d] * centroid[d];
    }
    java.util.Arrays.fill(scratch, dimension, codeDim, 0f);
    rotation.rotateInPlace(scratch);
    int codeBytes = codeBytes();
    java.util.Arrays.fill(out, outOff, outOff + codeBytes, (byte) 0);
    float absSum = 0f;
    for (int i = 0; i < codeDim; i++) {
      float x = scratch[i];
      if (Float.floatToRawIntBits(x) >= 0) {
        out[outOff + (i >>> 3)] |= (byte) (1 << (i & 7));
      }
      absSum += Math.abs(x);
    }
    float ip = absSum / (float) Math.sqrt(codeDim);
    boolean dot = metric == DistanceMetric.DOT;
    float add = dot ? (1f - vc) + cc : resNorm;
    float scale = ip == 0f ? 0f : (dot ? -resNorm : -2f * resNorm) / ip;
    RqCodes.putFloat(out, outOff + codeBytes, add);
    RqCodes.putFloat(out, outOff + codeBytes + 4, scale);
  }
}
