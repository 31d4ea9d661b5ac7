package dev.lancelot.engine.internal.index.vector.pq;

import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.engine.vector.VectorKernels;
import dev.lancelot.engine.vector.VectorizationProvider;

/**
 * A trained 8-bit product quantizer, immutable.
 *
 * <p>Layout, exactly Lance's codebook tensor (shape {@code [256, dim]}, float32, in global buffer
 * {@code codebook_position} of {@code auxiliary.idx}): sub-space after sub-space, each holding its
 * 256 centroids of {@code subDim = dim / m} floats. Centroid {@code c} of sub-vector {@code s}
 * starts at {@code (s * 256 + c) * subDim} ({@code get_sub_vector_centroids} in {@code
 * lance-index/src/vector/pq/utils.rs}). The {@code [256, dim]} shape is only a reshape of that
 * buffer: its rows are not whole centroids.
 *
 * <p>Metric, as Lance: codes are always the nearest centroid by l2 (Lance builds the quantizer with
 * l2 whatever the index metric). Lookup tables use l2 (squared) for l2 and cosine indexes and
 * {@code 1 - q_s·c} per sub-space for dot, where the summed table is corrected by {@code -(m-1)} so
 * the total is {@code 1 - q·x̂}.
 */
public final class PqCodebook implements java.io.Serializable {
  private static final long serialVersionUID = 1L;

  public static final int NUM_CENTROIDS = PqBuildParams.NUM_CENTROIDS;
  private static final VectorKernels K = VectorizationProvider.kernels();

  private final float[] codebook;

  /**
   * Per sub-space, the centroids column-major: {@code [s][d][c]} at {@code (s*subDim + d)*256 + c}.
   */
  private final float[] columns;

  private final int dim;
  private final int m;
  private final int subDim;
  private final DistanceMetric tableMetric;

  private PqCodebook(float[] codebook, int dim, int numSubVectors, DistanceMetric indexMetric) {
    if (numSubVectors < 1 || dim % numSubVectors != 0) {
      throw new IllegalArgumentException(
          "dim " + dim + " not divisible by num_sub_vectors " + numSubVectors);
    }
    if (codebook.length != NUM_CENTROIDS * dim) {
      throw new IllegalArgumentException(
          "codebook has " + codebook.length + " floats, expected 256 × " + dim);
    }
    if (indexMetric == DistanceMetric.HAMMING) {
      throw new IllegalArgumentException("PQ does not support hamming");
    }
    this.codebook = codebook;
    this.dim = dim;
    this.m = numSubVectors;
    this.subDim = dim / numSubVectors;
    this.tableMetric = indexMetric == DistanceMetric.DOT ? DistanceMetric.DOT : DistanceMetric.L2;
    this.columns = new float[codebook.length];
    for (int s = 0; s < m; s++) {
      for (int c = 0; c < NUM_CENTROIDS; c++) {
        for (int d = 0; d < subDim; d++) {
          columns[(s * subDim + d) * NUM_CENTROIDS + c] =
              codebook[(s * NUM_CENTROIDS + c) * subDim + d];
        }
      }
    }
  }

  /**
   * A codebook over a copy of {@code codebook} (Lance's layout), for an index of {@code
   * indexMetric}.
   */
  public static PqCodebook of(
      float[] codebook, int dim, int numSubVectors, DistanceMetric indexMetric) {
    return new PqCodebook(codebook.clone(), dim, numSubVectors, indexMetric);
  }

  static PqCodebook owning(
      float[] codebook, int dim, int numSubVectors, DistanceMetric indexMetric) {
    return new PqCodebook(codebook, dim, numSubVectors, indexMetric);
  }

  public int dimension() {
    return dim;
  }

  public int numSubVectors() {
    return m;
  }

  public int subDimension() {
    return subDim;
  }

  /** l2 for l2 and cosine indexes, dot for dot: the metric of the distances tables produce. */
  public DistanceMetric tableMetric() {
    return tableMetric;
  }

  /**
   * Whether vectors are encoded as residuals against their IVF centroid (l2 and cosine, as Lance).
   */
  public static boolean usesResidual(DistanceMetric indexMetric) {
    return indexMetric == DistanceMetric.L2 || indexMetric == DistanceMetric.COSINE;
  }

  /** A copy of the codebook in Lance's layout. */
  public float[] copyCodebook() {
    return codebook.clone();
  }

  /** Element {@code d} of centroid {@code c} of sub-space {@code s}. */
  public float centroidValue(int s, int c, int d) {
    return codebook[(s * NUM_CENTROIDS + c) * subDim + d];
  }

  /**
   * Encodes one vector: {@code out[outOff + s]} = nearest (l2, first on ties) centroid of sub-space
   * s.
   */
  public void encode(float[] vector, int off, byte[] out, int outOff) {
    encode(vector, off, out, outOff, new float[NUM_CENTROIDS]);
  }

  /** {@link #encode(float[], int, byte[], int)} with caller scratch of 256 floats. */
  public void encode(float[] vector, int off, byte[] out, int outOff, float[] scratch) {
    for (int s = 0; s < m; s++) {
      K.squareDistancesToColumns(
          vector,
          off + s * subDim,
          subDim,
          columns,
          s * subDim * NUM_CENTROIDS,
          NUM_CENTROIDS,
          scratch);
      int best = 0;
      float bestDist = Float.POSITIVE_INFINITY;
      for (int c = 0; c < NUM_CENTROIDS; c++) {
        if (scratch[c] < bestDist) {
          bestDist = scratch[c];
          best = c;
        }
      }
      out[outOff + s] = (byte) best;
    }
  }

  /**
   * Encodes {@code count} vectors stored back to back into row-major codes ({@code m} bytes each).
   */
  public byte[] encodeAll(float[] vectors, int off, int count) {
    byte[] codes = new byte[count * m];
    float[] scratch = new float[NUM_CENTROIDS];
    for (int i = 0; i < count; i++) {
      encode(vectors, off + i * dim, codes, i * m, scratch);
    }
    return codes;
  }

  /** The approximation of a vector from its codes ({@code codes[codesOff + s * stride]}). */
  public void decode(byte[] codes, int codesOff, int stride, float[] out, int outOff) {
    for (int s = 0; s < m; s++) {
      int c = codes[codesOff + s * stride] & 0xFF;
      System.arraycopy(
          codebook, (s * NUM_CENTROIDS + c) * subDim, out, outOff + s * subDim, subDim);
    }
  }

  /**
   * Fills {@code table[s * 256 + c]} with the distance from the query's sub-vector {@code s} to
   * centroid {@code c} ({@code float[m * 256]}, Lance's {@code build_distance_table_l2/_dot}). The
   * query must be in the codes' space: the residual against the partition centroid for l2 and
   * cosine indexes (normalized before, for cosine), the raw query for dot.
   */
  public void lookupTable(float[] query, int off, float[] table) {
    float[] scratch = new float[NUM_CENTROIDS];
    for (int s = 0; s < m; s++) {
      int colOff = s * subDim * NUM_CENTROIDS;
      if (tableMetric == DistanceMetric.DOT) {
        K.dotProductsToColumns(
            query, off + s * subDim, subDim, columns, colOff, NUM_CENTROIDS, scratch);
        for (int c = 0; c < NUM_CENTROIDS; c++) {
          table[s * NUM_CENTROIDS + c] = 1f - scratch[c];
        }
      } else {
        K.squareDistancesToColumns(
            query, off + s * subDim, subDim, columns, colOff, NUM_CENTROIDS, scratch);
        System.arraycopy(scratch, 0, table, s * NUM_CENTROIDS, NUM_CENTROIDS);
      }
    }
  }

  public float[] lookupTable(float[] query) {
    if (query.length != dim) {
      throw new IllegalArgumentException(
          "query has dimension " + query.length + ", codebook has " + dim);
    }
    float[] table = new float[m * NUM_CENTROIDS];
    lookupTable(query, 0, table);
    return table;
  }

  /** What to add to a sum of table entries: {@code -(m-1)} for dot (see class doc), else 0. */
  public float tableCorrection() {
    return tableMetric == DistanceMetric.DOT ? -(m - 1) : 0f;
  }
}
