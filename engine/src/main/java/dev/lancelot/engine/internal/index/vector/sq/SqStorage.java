package dev.lancelot.engine.internal.index.vector.sq;

import dev.lancelot.engine.internal.index.vector.QueryScorer;
import dev.lancelot.engine.internal.index.vector.VectorStorage;
import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.engine.vector.VectorKernels;
import dev.lancelot.engine.vector.VectorizationProvider;

/**
 * One partition's SQ codes, row-major ({@code codes[row * dim + d]}), scored as Lance's {@code
 * SQDistCalculator}: the query is encoded with the same bounds, then l2 (for l2 and cosine indexes,
 * on unit vectors for cosine) or {@code 1 - Σ a·b} (dot) on the codes, scaled by {@code range² /
 * 255²}. Node scorers use the node's own codes as the query.
 *
 * <p>Takes ownership of the code array; callers must not modify it afterwards.
 */
public final class SqStorage implements VectorStorage {
  private static final VectorKernels K = VectorizationProvider.kernels();

  private final ScalarQuantizer quantizer;
  private final byte[] codes;
  private final int rows;
  private final int dim;
  private final DistanceMetric metric;

  private SqStorage(ScalarQuantizer quantizer, byte[] codes, int rows, DistanceMetric indexMetric) {
    this.quantizer = quantizer;
    this.dim = quantizer.dimension();
    if ((long) rows * dim != codes.length) {
      throw new IllegalArgumentException(
          "codes length " + codes.length + " is not " + rows + " × " + dim);
    }
    if (indexMetric == DistanceMetric.HAMMING) {
      throw new IllegalArgumentException("SQ does not support hamming");
    }
    this.codes = codes;
    this.rows = rows;
    this.metric = indexMetric == DistanceMetric.DOT ? DistanceMetric.DOT : DistanceMetric.L2;
  }

  public static SqStorage of(
      ScalarQuantizer quantizer, byte[] codes, int rows, DistanceMetric indexMetric) {
    return new SqStorage(quantizer, codes, rows, indexMetric);
  }

  public ScalarQuantizer quantizer() {
    return quantizer;
  }

  @Override
  public int size() {
    return rows;
  }

  @Override
  public int dimension() {
    return dim;
  }

  @Override
  public DistanceMetric metric() {
    return metric;
  }

  @Override
  public QueryScorer scorer(float[] query) {
    if (query.length != dim) {
      throw new IllegalArgumentException(
          "query has dimension " + query.length + ", storage has " + dim);
    }
    byte[] q = new byte[dim];
    quantizer.encode(query, 0, q, 0);
    return new Scorer(q, 0);
  }

  @Override
  public QueryScorer nodeScorer(int node) {
    return new Scorer(codes, node * dim);
  }

  @Override
  public float distanceBetween(int a, int b) {
    return distance(codes, a * dim, b * dim);
  }

  @Override
  public void distancesBetween(int a, int[] others, int from, int count, float[] out) {
    scoreInto(codes, a * dim, others, from, count, out);
  }

  /** Distances from the code at {@code q[qOff..]} to rows {@code rows[from..from+count)}. */
  private void scoreInto(byte[] q, int qOff, int[] rows, int from, int count, float[] out) {
    if (metric == DistanceMetric.DOT) {
      K.dotProductsU8(q, qOff, codes, rows, from, count, dim, out);
      for (int i = 0; i < count; i++) {
        out[i] = quantizer.toValueDistance(1f - out[i]);
      }
    } else {
      K.squareDistancesU8(q, qOff, codes, rows, from, count, dim, out);
      for (int i = 0; i < count; i++) {
        out[i] = quantizer.toValueDistance(out[i]);
      }
    }
  }

  private float distance(byte[] q, int qOff, int rowOff) {
    float raw =
        metric == DistanceMetric.DOT
            ? 1f - (float) K.dotProductU8(q, qOff, codes, rowOff, dim)
            : (float) K.squareDistanceU8(q, qOff, codes, rowOff, dim);
    return quantizer.toValueDistance(raw);
  }

  private final class Scorer implements QueryScorer {
    private final byte[] q;
    private final int qOff;

    Scorer(byte[] q, int qOff) {
      this.q = q;
      this.qOff = qOff;
    }

    @Override
    public float score(int node) {
      return distance(q, qOff, node * dim);
    }

    @Override
    public void score(int[] nodes, int count, float[] out) {
      scoreInto(q, qOff, nodes, 0, count, out);
    }

    @Override
    public void scoreRange(int from, int count, float[] out) {
      for (int i = 0; i < count; i++) {
        out[i] = distance(q, qOff, (from + i) * dim);
      }
    }
  }
}
