package dev.lancelot.engine.internal.index.vector.kmeans;

import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.engine.vector.VectorException;
import dev.lancelot.engine.vector.VectorKernels;
import dev.lancelot.engine.vector.VectorizationProvider;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lloyd's k-means as Lance runs it ({@code train_kmeans} in {@code
 * lance-index/src/vector/kmeans.rs}): at most {@code k × 512} rows, random or k-means++ init,
 * membership with an optional balance penalty, centroids as member means, empty clusters refilled
 * by splitting a large cluster (the Faiss rule Lance uses: pick cluster j with probability
 * (|j|-1)/(n-k), copy its centroid scaled by 1 ± 1/1024 alternately per dimension), stop when the
 * loss changes by less than tolerance × loss.
 *
 * <p>Metrics: {@link DistanceMetric#L2} and {@link DistanceMetric#DOT} (distance {@code 1 - x·c});
 * cosine callers normalize the data and use L2, as Lance. Deterministic for a given seed. Logs each
 * iteration at debug and a summary at info.
 */
public final class KMeans {
  private static final Logger LOG = LoggerFactory.getLogger(KMeans.class);
  private static final VectorKernels K = VectorizationProvider.kernels();
  private static final int MAX_ROWS_PER_CLUSTER = 512;
  private static final float SPLIT_EPS = 1f / 1024;

  private KMeans() {}

  /**
   * Trains {@code k} centroids on rows {@code 0 .. n-1} of {@code data} (row-major, {@code dim}
   * wide). Rows must be finite; callers sample and validate. For {@code k > 256} this runs Lance's
   * hierarchical k-means ({@link HierarchicalKMeans}), otherwise flat Lloyd iterations.
   */
  public static KMeansResult train(
      float[] data, int n, int dim, int k, DistanceMetric metric, KMeansParams params) {
    checkArgs(n, k, metric);
    if (k > HIERARCHICAL_THRESHOLD) {
      return HierarchicalKMeans.train(data, n, dim, k, metric, params);
    }
    return trainFlat(data, n, dim, k, metric, params);
  }

  /** Above this k Lance clusters hierarchically (PQ's 256 stays flat, for accuracy). */
  static final int HIERARCHICAL_THRESHOLD = 256;

  private static void checkArgs(int n, int k, DistanceMetric metric) {
    if (metric != DistanceMetric.L2 && metric != DistanceMetric.DOT) {
      throw new IllegalArgumentException(
          "k-means runs on l2 or dot; normalize and use l2 for cosine: " + metric);
    }
    if (k < 1) {
      throw new IllegalArgumentException("k must be >= 1: " + k);
    }
    if (n < k) {
      throw new VectorException(
          "Cannot train k-means with "
              + k
              + " clusters: only "
              + n
              + " training rows. Use at most "
              + n
              + " clusters or train on more rows.");
    }
  }

  /** Flat Lloyd iterations (no hierarchy), for any k. */
  static KMeansResult trainFlat(
      float[] data, int n, int dim, int k, DistanceMetric metric, KMeansParams params) {
    return trainFlat(data, n, dim, k, metric, params, true);
  }

  static KMeansResult trainFlat(
      float[] data,
      int n,
      int dim,
      int k,
      DistanceMetric metric,
      KMeansParams params,
      boolean summaryAtInfo) {
    checkArgs(n, k, metric);
    long start = System.nanoTime();
    int rows = (int) Math.min(n, (long) k * MAX_ROWS_PER_CLUSTER);
    SplittableRandom random = new SplittableRandom(params.seed());
    float[] centroids =
        params.init() == KMeansInit.RANDOM
            ? randomInit(data, rows, dim, k, random)
            : plusPlusInit(data, rows, dim, k, metric, random);

    float balance = params.balanceFactor() / rows;
    float adjustedBalance = Float.MAX_VALUE;
    int[] membership = new int[rows];
    float[] memberDistance = new float[rows];
    int[] sizes = new int[k];
    float[] columns = new float[k * dim];
    float[] scratch = new float[k];
    double loss = Double.MAX_VALUE;
    double lastLoss = Double.MAX_VALUE;
    int iter = 0;
    while (iter < params.maxIters()) {
      iter++;
      float bias = Math.min(adjustedBalance, balance);
      transpose(centroids, k, dim, columns);
      assign(data, rows, dim, columns, k, metric, bias, sizes, membership, memberDistance, scratch);

      // Sizes, per-cluster loss and radius of the new membership.
      Arrays.fill(sizes, 0);
      double[] clusterLoss = new double[k];
      float[] radius = new float[k];
      int largest = 0;
      for (int i = 0; i < rows; i++) {
        int c = membership[i];
        if (c < 0) {
          continue;
        }
        sizes[c]++;
        clusterLoss[c] += memberDistance[i];
        radius[c] = Math.max(radius[c], memberDistance[i]);
        if (sizes[c] > sizes[largest]) {
          largest = c;
        }
      }
      adjustedBalance =
          sizes[largest] == 0
              ? 0f
              : (radius[largest] - (float) clusterLoss[largest] / sizes[largest]) / rows;
      double sizeSquares = 0;
      for (int s : sizes) {
        sizeSquares += (double) s * s;
      }
      double balanceLoss = bias * (sizeSquares - (double) rows * rows / k);
      lastLoss = balanceLoss;
      for (double l : clusterLoss) {
        lastLoss += l;
      }

      centroids = means(data, rows, dim, k, membership, sizes);
      int empty = splitEmptyClusters(rows, k, dim, sizes, centroids, random);
      if (LOG.isDebugEnabled()) {
        LOG.debug(
            "k-means iteration {}/{}: k={}, rows={}, loss={}, empty clusters refilled={}",
            iter,
            params.maxIters(),
            k,
            rows,
            lastLoss,
            empty);
      }
      if (Math.abs(loss - lastLoss) < params.tolerance() * lastLoss) {
        break;
      }
      loss = lastLoss;
    }
    if (summaryAtInfo || LOG.isDebugEnabled()) {
      String msg =
          "Trained k-means: k={}, dim={}, rows={}, metric={}, iterations={}, loss={}, {} ms";
      Object[] args = {
        k, dim, rows, metric.lanceName(), iter, lastLoss, (System.nanoTime() - start) / 1_000_000
      };
      if (summaryAtInfo) {
        LOG.info(msg, args);
      } else {
        LOG.debug(msg, args);
      }
    }
    return new KMeansResult(centroids, k, dim, lastLoss, iter);
  }

  /** Row-major {@code [k, dim]} to column-major {@code [dim, k]} for the column kernels. */
  public static void transpose(float[] rowMajor, int k, int dim, float[] out) {
    for (int c = 0; c < k; c++) {
      for (int d = 0; d < dim; d++) {
        out[d * k + c] = rowMajor[c * dim + d];
      }
    }
  }

  /** Distances from row {@code x} to every centroid given column-major; {@code 1 - x·c} for dot. */
  public static void distancesToCentroids(
      float[] x, int xOff, int dim, float[] columns, int k, DistanceMetric metric, float[] out) {
    if (metric == DistanceMetric.DOT) {
      K.dotProductsToColumns(x, xOff, dim, columns, 0, k, out);
      for (int c = 0; c < k; c++) {
        out[c] = 1f - out[c];
      }
    } else {
      K.squareDistancesToColumns(x, xOff, dim, columns, 0, k, out);
    }
  }

  private static final int ASSIGN_CHUNK = 2048;

  /**
   * Nearest (biased) centroid of each row; chunks of rows run in parallel, each row independently.
   */
  private static void assign(
      float[] data,
      int rows,
      int dim,
      float[] columns,
      int k,
      DistanceMetric metric,
      float bias,
      int[] sizes,
      int[] membership,
      float[] memberDistance,
      float[] scratch) {
    int chunks = (rows + ASSIGN_CHUNK - 1) / ASSIGN_CHUNK;
    if (chunks <= 1 || (long) rows * k * dim < 4_000_000L) {
      assignRange(
          data, 0, rows, dim, columns, k, metric, bias, sizes, membership, memberDistance, scratch);
      return;
    }
    java.util.stream.IntStream.range(0, chunks)
        .parallel()
        .forEach(
            c ->
                assignRange(
                    data,
                    c * ASSIGN_CHUNK,
                    Math.min(rows, (c + 1) * ASSIGN_CHUNK),
                    dim,
                    columns,
                    k,
                    metric,
                    bias,
                    sizes,
                    membership,
                    memberDistance,
                    new float[k]));
  }

  private static void assignRange(
      float[] data,
      int from,
      int to,
      int dim,
      float[] columns,
      int k,
      DistanceMetric metric,
      float bias,
      int[] sizes,
      int[] membership,
      float[] memberDistance,
      float[] scratch) {
    boolean biased = bias != 0f;
    for (int i = from; i < to; i++) {
      distancesToCentroids(data, i * dim, dim, columns, k, metric, scratch);
      int best = -1;
      float bestScore = Float.POSITIVE_INFINITY;
      float bestDistance = Float.POSITIVE_INFINITY;
      for (int c = 0; c < k; c++) {
        float d = scratch[c];
        float score = biased ? d + bias * sizes[c] : d;
        if (score < bestScore) {
          bestScore = score;
          bestDistance = d;
          best = c;
        }
      }
      membership[i] = best;
      memberDistance[i] = bestDistance;
    }
  }

  private static float[] means(
      float[] data, int rows, int dim, int k, int[] membership, int[] sizes) {
    float[] sums = new float[k * dim];
    for (int i = 0; i < rows; i++) {
      int c = membership[i];
      if (c < 0) {
        continue;
      }
      int co = c * dim;
      int ro = i * dim;
      for (int d = 0; d < dim; d++) {
        sums[co + d] += data[ro + d];
      }
    }
    for (int c = 0; c < k; c++) {
      if (sizes[c] > 0) {
        float inv = 1f / sizes[c];
        for (int d = c * dim; d < (c + 1) * dim; d++) {
          sums[d] *= inv;
        }
      }
    }
    return sums;
  }

  /** Faiss's rule, as Lance's {@code split_clusters}. Returns the number of clusters refilled. */
  private static int splitEmptyClusters(
      int n, int k, int dim, int[] sizes, float[] centroids, SplittableRandom random) {
    int refilled = 0;
    for (int i = 0; i < k; i++) {
      if (sizes[i] != 0) {
        continue;
      }
      int j = 0;
      // Terminates: with an empty cluster and n >= k some cluster holds >= 2 rows.
      for (long guard = 0; guard < 1_000_000_000L; guard++) {
        float p = (sizes[j] - 1f) / Math.max(1, n - k);
        if (random.nextDouble() < p) {
          break;
        }
        j = (j + 1) % k;
      }
      sizes[i] = sizes[j] / 2;
      sizes[j] -= sizes[i];
      for (int d = 0; d < dim; d++) {
        float cj = centroids[j * dim + d];
        if (d % 2 == 0) {
          centroids[i * dim + d] = cj * (1 + SPLIT_EPS);
          centroids[j * dim + d] = cj * (1 - SPLIT_EPS);
        } else {
          centroids[i * dim + d] = cj * (1 - SPLIT_EPS);
          centroids[j * dim + d] = cj * (1 + SPLIT_EPS);
        }
      }
      refilled++;
    }
    return refilled;
  }

  private static float[] randomInit(
      float[] data, int rows, int dim, int k, SplittableRandom random) {
    int[] chosen = Sampling.distinct(rows, k, random);
    float[] centroids = new float[k * dim];
    for (int c = 0; c < k; c++) {
      System.arraycopy(data, chosen[c] * dim, centroids, c * dim, dim);
    }
    return centroids;
  }

  private static float[] plusPlusInit(
      float[] data, int rows, int dim, int k, DistanceMetric metric, SplittableRandom random) {
    float[] centroids = new float[k * dim];
    float[] nearest = new float[rows];
    Arrays.fill(nearest, Float.POSITIVE_INFINITY);
    int first = random.nextInt(rows);
    System.arraycopy(data, first * dim, centroids, 0, dim);
    float[] block = new float[rows];
    for (int c = 1; c <= k; c++) {
      metric.distances(centroids, (c - 1) * dim, data, 0, rows, dim, block, 0);
      double total = 0;
      for (int i = 0; i < rows; i++) {
        // Dot distances can be negative; shift by the minimum possible is overkill, clamp instead.
        nearest[i] = Math.min(nearest[i], Math.max(0f, block[i]));
        total += nearest[i];
      }
      if (c == k) {
        break;
      }
      int pick = rows - 1;
      double target = random.nextDouble() * total;
      for (int i = 0; i < rows; i++) {
        target -= nearest[i];
        if (target < 0) {
          pick = i;
          break;
        }
      }
      if (total == 0) {
        pick = random.nextInt(rows);
      }
      System.arraycopy(data, pick * dim, centroids, c * dim, dim);
    }
    return centroids;
  }
}
