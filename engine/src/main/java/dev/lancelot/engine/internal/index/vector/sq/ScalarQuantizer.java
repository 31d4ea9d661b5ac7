package dev.lancelot.engine.internal.index.vector.sq;

import dev.lancelot.engine.internal.index.vector.VectorChecks;
import dev.lancelot.engine.internal.index.vector.kmeans.Sampling;
import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.engine.vector.VectorException;
import java.util.SplittableRandom;

/**
 * 8-bit scalar quantization with one global range {@code [start, end]} over all dimensions, as
 * Lance ({@code lance-index/src/vector/sq.rs}; stored as {@code "bounds":{"start","end"}} in the
 * storage metadata, with the codes in {@code __sq_code fsl<u8, dim>}, row-major).
 *
 * <p>Encoding, in double precision: {@code code = u8((x - start) * 255 / (end - start))} where the
 * cast truncates toward zero and saturates (Rust's {@code as u8}: below 0 and NaN give 0, above 255
 * gives 255); all codes are 0 when {@code start == end}. A query is encoded the same way and
 * distances are computed on codes: l2 as {@code Σ (a-b)²} in integers, dot as {@code 1 - Σ a·b};
 * both scaled by {@code range² / 255²} in float ({@code inverse_scalar_dist}).
 */
public final class ScalarQuantizer implements java.io.Serializable {
  private static final long serialVersionUID = 1L;

  private final int dim;
  private final double start;
  private final double end;

  private ScalarQuantizer(int dim, double start, double end) {
    this.dim = dim;
    this.start = start;
    this.end = end;
  }

  /** A quantizer with known bounds (e.g. read back from an index file). */
  public static ScalarQuantizer of(int dim, double start, double end) {
    if (dim < 1 || !(start <= end)) {
      throw new IllegalArgumentException(
          "bad SQ bounds [" + start + ", " + end + "] for dim " + dim);
    }
    return new ScalarQuantizer(dim, start, end);
  }

  /**
   * Learns the bounds: the minimum and maximum value over a sample of {@code sampleRate × 256} rows
   * (normalized first for cosine indexes, as Lance trains on what it stores).
   */
  public static ScalarQuantizer train(
      float[] vectors, int count, int dim, DistanceMetric indexMetric, SqBuildParams params) {
    String action = "train SQ";
    if (indexMetric == DistanceMetric.HAMMING) {
      throw new VectorException(
          "Cannot "
              + action
              + " for hamming: SQ needs float vectors. Use a flat"
              + " search for uint8 (binary) vectors.");
    }
    VectorChecks.checkTrainingBlock(action, vectors, count, dim);
    if (count < 1) {
      throw new VectorException(
          "Cannot "
              + action
              + ": there are no rows to learn bounds from. Add rows"
              + " before building the index.");
    }
    int[] rows =
        count > params.sampleSize()
            ? Sampling.distinct(
                count, (int) params.sampleSize(), new SplittableRandom(params.seed()))
            : null;
    int n = rows == null ? count : rows.length;
    double lo = Double.MAX_VALUE;
    double hi = -Double.MAX_VALUE;
    float[] unit = new float[dim];
    for (int i = 0; i < n; i++) {
      int row = rows == null ? i : rows[i];
      System.arraycopy(vectors, row * dim, unit, 0, dim);
      if (indexMetric == DistanceMetric.COSINE && !DistanceMetric.normalizeOrFalse(unit, 0, dim)) {
        continue; // zero vectors are not indexed by cosine indexes (Lance drops them)
      }
      for (int d = 0; d < dim; d++) {
        lo = Math.min(lo, unit[d]);
        hi = Math.max(hi, unit[d]);
      }
    }
    if (lo > hi) {
      throw new VectorException(
          "Cannot "
              + action
              + " for cosine: every training vector is a zero vector."
              + " Add non-zero vectors before building the index.");
    }
    return new ScalarQuantizer(dim, lo, hi);
  }

  public int dimension() {
    return dim;
  }

  public double start() {
    return start;
  }

  public double end() {
    return end;
  }

  /** The code of one value. */
  public int encode(float x) {
    if (start == end) {
      return 0;
    }
    double v = (x - start) * 255.0 / (end - start);
    if (!(v > 0)) {
      return 0; // negative and NaN saturate to 0
    }
    return v >= 255 ? 255 : (int) v;
  }

  public void encode(float[] vector, int off, byte[] out, int outOff) {
    for (int d = 0; d < dim; d++) {
      out[outOff + d] = (byte) encode(vector[off + d]);
    }
  }

  /** Row-major codes of {@code count} vectors stored back to back. */
  public byte[] encodeAll(float[] vectors, int off, int count) {
    byte[] out = new byte[count * dim];
    for (int i = 0; i < count; i++) {
      encode(vectors, off + i * dim, out, i * dim);
    }
    return out;
  }

  /** Lance's {@code inverse_scalar_dist} of one code-space distance: {@code v * range² / 255²}. */
  public float toValueDistance(float codeDistance) {
    float range = (float) (end - start);
    return codeDistance * (range * range) / 65025f;
  }
}
