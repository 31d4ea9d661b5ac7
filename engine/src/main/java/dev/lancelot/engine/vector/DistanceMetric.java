package dev.lancelot.engine.vector;

import java.util.Locale;

/**
 * Distance metrics with Lance's conventions ({@code lance-linalg/src/distance/}); smaller is always
 * closer:
 *
 * <ul>
 *   <li>{@link #L2}: squared Euclidean distance {@code Σ (a-b)²} (no square root).
 *   <li>{@link #COSINE}: {@code 1 - a·b / (|a| |b|)}, in [0, 2]. A zero vector on either side gives
 *       NaN, exactly as Lance (0/0); NaN sorts after every number in {@code TopKCollector}.
 *   <li>{@link #DOT}: {@code 1 - a·b}. Lance changed this from {@code -a·b} in 0.13 ({@code
 *       dot_distance} in {@code distance/dot.rs}); the order is the same, the values are shifted by
 *       one, and Lance reports them in {@code _distance}.
 *   <li>{@link #HAMMING}: number of differing bits of two uint8 (binary) vectors.
 * </ul>
 *
 * <p>float32 and float16 vectors support l2, cosine and dot; uint8 vectors support hamming (Lance's
 * flat search rejects the float metrics on uint8 and hamming on floats). Single methods compare two
 * vectors; bulk methods compare one query with {@code count} vectors stored back to back. All go
 * through {@link VectorizationProvider#kernels()}.
 */
public enum DistanceMetric {
  L2("l2", 0),
  COSINE("cosine", 1),
  DOT("dot", 2),
  HAMMING("hamming", 3);

  private static final VectorKernels K = VectorizationProvider.kernels();

  private final String lanceName;
  private final int protoValue;

  DistanceMetric(String lanceName, int protoValue) {
    this.lanceName = lanceName;
    this.protoValue = protoValue;
  }

  /**
   * The name Lance prints and parses ({@code l2}, {@code cosine}, {@code dot}, {@code hamming}).
   */
  public String lanceName() {
    return lanceName;
  }

  /** The value in {@code lance.index.pb.VectorMetricType} / {@code VectorIndexDetails.metric}. */
  public int protoValue() {
    return protoValue;
  }

  /** Parses a metric name as Lance does: case-insensitive, {@code euclidean} meaning l2. */
  public static DistanceMetric parse(String name) {
    if (name != null) {
      switch (name.trim().toLowerCase(Locale.ROOT)) {
        case "l2":
        case "euclidean":
          return L2;
        case "cosine":
          return COSINE;
        case "dot":
          return DOT;
        case "hamming":
          return HAMMING;
        default:
          break;
      }
    }
    throw new VectorException(
        "Cannot parse distance metric '"
            + name
            + "': it is not a metric Lance knows. Use one of l2, cosine, dot, hamming.");
  }

  public static DistanceMetric fromProto(int value) {
    for (DistanceMetric m : values()) {
      if (m.protoValue == value) {
        return m;
      }
    }
    throw new IllegalArgumentException("Unknown VectorMetricType " + value);
  }

  public boolean supports(ElementType type) {
    return (this == HAMMING) == (type == ElementType.UINT8);
  }

  /**
   * Throws a {@link VectorException} naming a usable metric when this one does not fit {@code
   * type}.
   */
  public void checkSupports(ElementType type) {
    if (!supports(type)) {
      String fix =
          type == ElementType.UINT8
              ? "Use hamming for uint8 (binary) vectors, or store the vectors as float32/float16."
              : "Use l2, cosine or dot for float vectors; hamming needs uint8 (binary) vectors.";
      throw new VectorException(
          "Cannot compute "
              + lanceName
              + " distance on "
              + type.arrowName()
              + " vectors: Lance supports "
              + lanceName
              + " only on "
              + (this == HAMMING ? "uint8" : "float32/float16")
              + " vectors. "
              + fix);
    }
  }

  /** Distance between two float32 vectors. */
  public float distance(float[] a, int aOff, float[] b, int bOff, int dim) {
    switch (this) {
      case L2:
        return K.squareDistance(a, aOff, b, bOff, dim);
      case COSINE:
        return K.cosineDistance(a, aOff, K.norm(a, aOff, dim), b, bOff, dim);
      case DOT:
        return 1f - K.dotProduct(a, aOff, b, bOff, dim);
      default:
        checkSupports(ElementType.FLOAT32);
        throw new AssertionError();
    }
  }

  public float distance(float[] a, float[] b) {
    if (a.length != b.length) {
      throw new IllegalArgumentException("dimension mismatch: " + a.length + " vs " + b.length);
    }
    return distance(a, 0, b, 0, a.length);
  }

  /** Distances from one float32 query to {@code count} vectors stored back to back. */
  public void distances(
      float[] q, int qOff, float[] data, int dataOff, int count, int dim, float[] out, int outOff) {
    switch (this) {
      case L2:
        K.squareDistances(q, qOff, data, dataOff, count, dim, out, outOff);
        return;
      case COSINE:
        K.cosineDistances(q, qOff, K.norm(q, qOff, dim), data, dataOff, count, dim, out, outOff);
        return;
      case DOT:
        K.dotProducts(q, qOff, data, dataOff, count, dim, out, outOff);
        for (int i = outOff; i < outOff + count; i++) {
          out[i] = 1f - out[i];
        }
        return;
      default:
        checkSupports(ElementType.FLOAT32);
    }
  }

  /** Distance between two float16 vectors (half-precision bits). */
  public float distance(short[] a, int aOff, short[] b, int bOff, int dim) {
    switch (this) {
      case L2:
        return K.squareDistanceF16(a, aOff, b, bOff, dim);
      case COSINE:
        return K.cosineDistanceF16(a, aOff, K.normF16(a, aOff, dim), b, bOff, dim);
      case DOT:
        return 1f - K.dotProductF16(a, aOff, b, bOff, dim);
      default:
        checkSupports(ElementType.FLOAT16);
        throw new AssertionError();
    }
  }

  /** Distances from one float16 query to {@code count} float16 vectors stored back to back. */
  public void distances(
      short[] q, int qOff, short[] data, int dataOff, int count, int dim, float[] out, int outOff) {
    switch (this) {
      case L2:
        for (int i = 0; i < count; i++) {
          out[outOff + i] = K.squareDistanceF16(q, qOff, data, dataOff + i * dim, dim);
        }
        return;
      case COSINE:
        {
          float qNorm = K.normF16(q, qOff, dim);
          for (int i = 0; i < count; i++) {
            out[outOff + i] = K.cosineDistanceF16(q, qOff, qNorm, data, dataOff + i * dim, dim);
          }
          return;
        }
      case DOT:
        for (int i = 0; i < count; i++) {
          out[outOff + i] = 1f - K.dotProductF16(q, qOff, data, dataOff + i * dim, dim);
        }
        return;
      default:
        checkSupports(ElementType.FLOAT16);
    }
  }

  /** Hamming distance between two uint8 vectors of {@code dim} bytes. */
  public float distance(byte[] a, int aOff, byte[] b, int bOff, int dim) {
    checkSupports(ElementType.UINT8);
    return K.hammingDistance(a, aOff, b, bOff, dim);
  }

  /** Hamming distances from one uint8 query to {@code count} vectors of {@code dim} bytes. */
  public void distances(
      byte[] q, int qOff, byte[] data, int dataOff, int count, int dim, float[] out, int outOff) {
    checkSupports(ElementType.UINT8);
    for (int i = 0; i < count; i++) {
      out[outOff + i] = K.hammingDistance(q, qOff, data, dataOff + i * dim, dim);
    }
  }

  /**
   * Scales {@code v[off..off+dim)} to unit length in place (cosine indexes store unit vectors). A
   * zero or non-finite vector is left as it is; see {@link #normalizeOrFalse}.
   */
  public static void normalize(float[] v, int off, int dim) {
    normalizeOrFalse(v, off, dim);
  }

  /**
   * Normalizes like {@link #normalize} and returns {@code false}, leaving the vector unchanged,
   * when it has no direction (zero norm) or a non-finite norm: Lance's normalization turns such
   * vectors into NaN and then drops them from cosine indexes.
   */
  public static boolean normalizeOrFalse(float[] v, int off, int dim) {
    float norm = K.norm(v, off, dim);
    if (!(norm > 0) || !Float.isFinite(norm)) {
      return false;
    }
    float inv = 1f / norm;
    for (int i = off; i < off + dim; i++) {
      v[i] *= inv;
    }
    return true;
  }
}
