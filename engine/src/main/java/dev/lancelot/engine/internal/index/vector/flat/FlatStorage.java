package dev.lancelot.engine.internal.index.vector.flat;

import dev.lancelot.engine.internal.index.vector.QueryScorer;
import dev.lancelot.engine.internal.index.vector.VectorStorage;
import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.engine.vector.ElementType;
import dev.lancelot.engine.vector.VectorKernels;
import dev.lancelot.engine.vector.VectorizationProvider;

/**
 * Raw float32 vectors of one partition, row-major in one {@code float[]} ({@code vectors[node * dim
 * + d]}), as Lance's {@code FlatFloatStorage} (column {@code flat fsl<f32, dim>} in IVF_FLAT's and
 * IVF_HNSW_FLAT's {@code auxiliary.idx}). Cosine indexes store unit vectors and score them with the
 * cosine metric, as Lance.
 *
 * <p>The storage takes ownership of the array it is given; callers must not modify it afterwards.
 */
public final class FlatStorage implements VectorStorage {
  private static final VectorKernels K = VectorizationProvider.kernels();

  private final float[] vectors;
  private final int dim;
  private final int size;
  private final DistanceMetric metric;

  private FlatStorage(float[] vectors, int dim, DistanceMetric metric) {
    if (dim <= 0 || vectors.length % dim != 0) {
      throw new IllegalArgumentException(
          "vectors length " + vectors.length + " is not a multiple of dim " + dim);
    }
    metric.checkSupports(ElementType.FLOAT32);
    this.vectors = vectors;
    this.dim = dim;
    this.size = vectors.length / dim;
    this.metric = metric;
  }

  public static FlatStorage of(float[] vectors, int dim, DistanceMetric metric) {
    return new FlatStorage(vectors, dim, metric);
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public int dimension() {
    return dim;
  }

  @Override
  public DistanceMetric metric() {
    return metric;
  }

  /** Copies node {@code node}'s vector into {@code out[outOff..]}. */
  public void vector(int node, float[] out, int outOff) {
    System.arraycopy(vectors, node * dim, out, outOff, dim);
  }

  @Override
  public QueryScorer scorer(float[] query) {
    if (query.length != dim) {
      throw new IllegalArgumentException(
          "query has dimension " + query.length + ", storage has " + dim);
    }
    return new Scorer(query, 0);
  }

  @Override
  public QueryScorer nodeScorer(int node) {
    return new Scorer(vectors, node * dim);
  }

  @Override
  public float distanceBetween(int a, int b) {
    return metric.distance(vectors, a * dim, vectors, b * dim, dim);
  }

  private final class Scorer implements QueryScorer {
    private final float[] q;
    private final int qOff;
    private final float qNorm;

    Scorer(float[] q, int qOff) {
      this.q = q;
      this.qOff = qOff;
      this.qNorm = metric == DistanceMetric.COSINE ? K.norm(q, qOff, dim) : 0f;
    }

    @Override
    public float score(int node) {
      int off = node * dim;
      switch (metric) {
        case L2:
          return K.squareDistance(q, qOff, vectors, off, dim);
        case COSINE:
          return K.cosineDistance(q, qOff, qNorm, vectors, off, dim);
        default:
          return 1f - K.dotProduct(q, qOff, vectors, off, dim);
      }
    }

    @Override
    public void score(int[] nodes, int count, float[] out) {
      for (int i = 0; i < count; i++) {
        out[i] = score(nodes[i]);
      }
    }

    @Override
    public void scoreRange(int from, int count, float[] out) {
      switch (metric) {
        case L2:
          K.squareDistances(q, qOff, vectors, from * dim, count, dim, out, 0);
          return;
        case COSINE:
          K.cosineDistances(q, qOff, qNorm, vectors, from * dim, count, dim, out, 0);
          return;
        default:
          K.dotProducts(q, qOff, vectors, from * dim, count, dim, out, 0);
          for (int i = 0; i < count; i++) {
            out[i] = 1f - out[i];
          }
      }
    }
  }
}
