package dev.lancelot.engine.vector;

/**
 * The arithmetic under every distance: dot products, squared Euclidean distances, cosine parts and
 * bit counts over flat arrays with offsets. One implementation is chosen per JVM by {@link
 * VectorizationProvider}; callers reach it through {@link DistanceMetric} or {@link
 * VectorizationProvider#kernels()} and never see which one runs.
 *
 * <p>Conventions: {@code dim} elements are read from each offset; "bulk" methods compare one query
 * with {@code count} vectors stored back to back ({@code data[dataOff + i * dim ...]}) and write
 * {@code out[outOff + i]}. Column methods compare one query with {@code count} vectors stored
 * transposed ({@code columns[colOff + d * count + i]} is element {@code d} of vector {@code i}),
 * which keeps the inner loop over vectors long even when {@code dim} is tiny (PQ sub-vectors,
 * k-means centroids). Implementations are stateless and thread-safe.
 */
public interface VectorKernels {
  /** A short name for logs and benchmarks, e.g. {@code scalar} or {@code simd-256}. */
  String name();

  float dotProduct(float[] a, int aOff, float[] b, int bOff, int dim);

  float squareDistance(float[] a, int aOff, float[] b, int bOff, int dim);

  /**
   * {@code 1 - a·b / (aNorm * |b|)}, with {@code a·b} and {@code |b|²} accumulated in one pass (as
   * Lance's {@code cosine_fast}). A zero vector on either side gives NaN, as in Lance.
   */
  float cosineDistance(float[] a, int aOff, float aNorm, float[] b, int bOff, int dim);

  /** Euclidean norm {@code sqrt(a·a)}. */
  default float norm(float[] a, int off, int dim) {
    return (float) Math.sqrt(dotProduct(a, off, a, off, dim));
  }

  default void squareDistances(
      float[] q, int qOff, float[] data, int dataOff, int count, int dim, float[] out, int outOff) {
    for (int i = 0; i < count; i++) {
      out[outOff + i] = squareDistance(q, qOff, data, dataOff + i * dim, dim);
    }
  }

  default void dotProducts(
      float[] q, int qOff, float[] data, int dataOff, int count, int dim, float[] out, int outOff) {
    for (int i = 0; i < count; i++) {
      out[outOff + i] = dotProduct(q, qOff, data, dataOff + i * dim, dim);
    }
  }

  default void cosineDistances(
      float[] q,
      int qOff,
      float qNorm,
      float[] data,
      int dataOff,
      int count,
      int dim,
      float[] out,
      int outOff) {
    for (int i = 0; i < count; i++) {
      out[outOff + i] = cosineDistance(q, qOff, qNorm, data, dataOff + i * dim, dim);
    }
  }

  /** {@code out[i] = Σ_d (q[d] - columns[colOff + d*count + i])²} for {@code i < count}. */
  void squareDistancesToColumns(
      float[] q, int qOff, int dim, float[] columns, int colOff, int count, float[] out);

  /** {@code out[i] = Σ_d q[d] * columns[colOff + d*count + i]} for {@code i < count}. */
  void dotProductsToColumns(
      float[] q, int qOff, int dim, float[] columns, int colOff, int count, float[] out);

  float dotProductF16(short[] a, int aOff, short[] b, int bOff, int dim);

  float squareDistanceF16(short[] a, int aOff, short[] b, int bOff, int dim);

  float cosineDistanceF16(short[] a, int aOff, float aNorm, short[] b, int bOff, int dim);

  default float normF16(short[] a, int off, int dim) {
    return (float) Math.sqrt(dotProductF16(a, off, a, off, dim));
  }

  /** Number of differing bits over {@code len} bytes. */
  int hammingDistance(byte[] a, int aOff, byte[] b, int bOff, int len);

  /**
   * {@code Σ (a[i] - b[i])²} with bytes read unsigned (SQ codes). Exact in int for len < 33,000.
   */
  int squareDistanceU8(byte[] a, int aOff, byte[] b, int bOff, int len);

  /** {@code Σ a[i] * b[i]} with bytes read unsigned. Exact in int for len < 33,000. */
  int dotProductU8(byte[] a, int aOff, byte[] b, int bOff, int len);

  /**
   * {@link #squareDistanceU8} of the query {@code q[qOff..qOff+dim)} against rows {@code
   * rows[rowsOff..rowsOff+count)} of the row-major {@code codes} ({@code dim} bytes a row),
   * converted to float: {@code out[i] = squareDistanceU8(q, qOff, codes, rows[rowsOff + i] * dim,
   * dim)}. Graph searches score a neighbour list at a time through this; an implementation may work
   * on several rows at once so their memory reads overlap.
   */
  default void squareDistancesU8(
      byte[] q, int qOff, byte[] codes, int[] rows, int rowsOff, int count, int dim, float[] out) {
    for (int i = 0; i < count; i++) {
      out[i] = squareDistanceU8(q, qOff, codes, rows[rowsOff + i] * dim, dim);
    }
  }

  /**
   * {@link #dotProductU8} of the query against rows {@code rows[rowsOff..rowsOff+count)} of {@code
   * codes}, as {@link #squareDistancesU8}.
   */
  default void dotProductsU8(
      byte[] q, int qOff, byte[] codes, int[] rows, int rowsOff, int count, int dim, float[] out) {
    for (int i = 0; i < count; i++) {
      out[i] = dotProductU8(q, qOff, codes, rows[rowsOff + i] * dim, dim);
    }
  }
}
