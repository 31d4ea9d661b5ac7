package dev.lancelot.engine.internal.index.vector.ivf;

import dev.lancelot.engine.internal.index.vector.kmeans.KMeans;
import dev.lancelot.engine.vector.DistanceMetric;
import java.util.Arrays;

/**
 * Trained IVF centroids, immutable. {@code centroids[p * dim + d]} is exactly the Tensor Lance
 * stores in the {@code IVF} proto ({@code centroids_tensor}, shape {@code [P, dim]}, float32).
 *
 * <p>Metric handling as Lance: for a cosine index the centroids were trained on unit vectors with
 * l2, and vectors and queries are normalized before they meet the centroids ({@code
 * IvfTransformer}, {@code ANNIvfPartitionExec}); dot uses {@code 1 - x·c}; l2 is squared Euclidean.
 * Partition assignment and ranking therefore use l2 for cosine.
 */
public final class IvfModel implements java.io.Serializable {
  private static final long serialVersionUID = 1L;

  private final float[] centroids;
  private final float[] columns;
  private final int numPartitions;
  private final int dim;
  private final DistanceMetric metric;
  private final double loss;

  private IvfModel(float[] centroids, int dim, DistanceMetric metric, double loss) {
    if (dim <= 0 || centroids.length == 0 || centroids.length % dim != 0) {
      throw new IllegalArgumentException(
          "centroids length " + centroids.length + " is not a positive multiple of " + dim);
    }
    if (metric == DistanceMetric.HAMMING) {
      throw new IllegalArgumentException("binary IVF is not supported");
    }
    this.centroids = centroids;
    this.dim = dim;
    this.numPartitions = centroids.length / dim;
    this.metric = metric;
    this.loss = loss;
    this.columns = new float[centroids.length];
    KMeans.transpose(centroids, numPartitions, dim, columns);
  }

  /** A model over given centroids (copied), e.g. read back from an index file. */
  public static IvfModel of(float[] centroids, int dim, DistanceMetric metric, double loss) {
    return new IvfModel(centroids.clone(), dim, metric, loss);
  }

  static IvfModel owning(float[] centroids, int dim, DistanceMetric metric, double loss) {
    return new IvfModel(centroids, dim, metric, loss);
  }

  public int numPartitions() {
    return numPartitions;
  }

  public int dimension() {
    return dim;
  }

  /** The index metric (what the user asked for, e.g. cosine). */
  public DistanceMetric metric() {
    return metric;
  }

  /** k-means loss of the training, as Lance records it in the IVF proto ({@code loss}). */
  public double loss() {
    return loss;
  }

  /** A copy of all centroids, row-major {@code [P, dim]}. */
  public float[] copyCentroids() {
    return centroids.clone();
  }

  public float[] centroid(int partition) {
    return Arrays.copyOfRange(centroids, partition * dim, (partition + 1) * dim);
  }

  /** The metric used against centroids: l2 for cosine indexes (on unit vectors). */
  public DistanceMetric centroidMetric() {
    return metric == DistanceMetric.COSINE ? DistanceMetric.L2 : metric;
  }

  /**
   * The query as the index sees it: a normalized copy for cosine, else a plain copy. Residuals and
   * quantized scorers start from this.
   */
  public float[] prepareQuery(float[] query) {
    checkDim(query.length);
    float[] q = query.clone();
    if (metric == DistanceMetric.COSINE) {
      DistanceMetric.normalize(q, 0, dim);
    }
    return q;
  }

  /**
   * Ranks the partitions nearest first for {@code query} (raw; normalized here for cosine) and
   * keeps the first {@code maxProbes} (all when {@code maxProbes >= numPartitions}).
   */
  public PartitionRanking rankPartitions(float[] query, int maxProbes) {
    if (maxProbes < 1) {
      throw new IllegalArgumentException("maxProbes must be >= 1: " + maxProbes);
    }
    float[] q = prepareQuery(query);
    float[] dist = new float[numPartitions];
    KMeans.distancesToCentroids(q, 0, dim, columns, numPartitions, centroidMetric(), dist);
    // Sort (distance, partition) pairs packed in longs: no boxing, ties by partition id.
    long[] keys = new long[numPartitions];
    for (int p = 0; p < numPartitions; p++) {
      keys[p] = ((long) sortableBits(dist[p]) << 32) | p;
    }
    Arrays.sort(keys);
    int n = Math.min(maxProbes, numPartitions);
    int[] ids = new int[n];
    float[] ds = new float[n];
    for (int i = 0; i < n; i++) {
      ids[i] = (int) keys[i];
      ds[i] = dist[ids[i]];
    }
    return new PartitionRanking(ids, ds);
  }

  /**
   * Nearest partition of one raw vector, or -1 when Lance would leave it out of the index:
   * non-finite values, or a zero vector in a cosine index.
   */
  public int assign(float[] vector, int off) {
    int[] out = new int[1];
    assign(vector, off, 1, out, null);
    return out[0];
  }

  /**
   * Assigns {@code count} raw vectors stored back to back from {@code off}: {@code partitions[i]}
   * gets the nearest partition (-1 for vectors Lance leaves out, see {@link #assign(float[], int)})
   * and, when given, {@code distances[i]} the distance to its centroid in {@link
   * #centroidMetric()}.
   */
  public void assign(float[] vectors, int off, int count, int[] partitions, float[] distances) {
    int chunk = 2048;
    int chunks = (count + chunk - 1) / chunk;
    if (chunks <= 1) {
      assignRange(vectors, off, 0, count, partitions, distances);
      return;
    }
    // Rows are independent, so parallel chunks give the same answer as a sequential pass.
    java.util.stream.IntStream.range(0, chunks)
        .parallel()
        .forEach(
            c ->
                assignRange(
                    vectors,
                    off,
                    c * chunk,
                    Math.min(count, (c + 1) * chunk),
                    partitions,
                    distances));
  }

  private void assignRange(
      float[] vectors, int off, int from, int to, int[] partitions, float[] distances) {
    float[] scratch = new float[numPartitions];
    float[] unit = metric == DistanceMetric.COSINE ? new float[dim] : null;
    DistanceMetric m = centroidMetric();
    for (int i = from; i < to; i++) {
      float[] src = vectors;
      int srcOff = off + i * dim;
      if (unit != null) {
        System.arraycopy(vectors, srcOff, unit, 0, dim);
        if (!DistanceMetric.normalizeOrFalse(unit, 0, dim)) {
          // A zero vector has no direction: Lance's normalization gives NaN and drops the row.
          partitions[i] = -1;
          if (distances != null) {
            distances[i] = Float.NaN;
          }
          continue;
        }
        src = unit;
        srcOff = 0;
      }
      KMeans.distancesToCentroids(src, srcOff, dim, columns, numPartitions, m, scratch);
      int best = -1;
      float bestDist = Float.POSITIVE_INFINITY;
      for (int p = 0; p < numPartitions; p++) {
        if (scratch[p] < bestDist) {
          bestDist = scratch[p];
          best = p;
        }
      }
      partitions[i] = best;
      if (distances != null) {
        distances[i] = bestDist;
      }
    }
  }

  /**
   * {@code out = vector - centroid(partition)}: the residual PQ encodes for l2 and cosine indexes.
   * {@code vector} must already be prepared (normalized for cosine).
   */
  public void residual(float[] vector, int off, int partition, float[] out, int outOff) {
    int c = partition * dim;
    for (int d = 0; d < dim; d++) {
      out[outOff + d] = vector[off + d] - centroids[c + d];
    }
  }

  /** Float bits as an int whose signed order is Float.compare's order (NaN last). */
  private static int sortableBits(float f) {
    int bits = Float.floatToIntBits(f);
    return bits ^ ((bits >> 31) & 0x7FFFFFFF);
  }

  private void checkDim(int length) {
    if (length != dim) {
      throw new IllegalArgumentException("vector has dimension " + length + ", index has " + dim);
    }
  }
}
