package dev.lancelot.engine.internal.index.vector.pq;

import dev.lancelot.engine.internal.index.vector.VectorChecks;
import dev.lancelot.engine.internal.index.vector.kmeans.KMeans;
import dev.lancelot.engine.internal.index.vector.kmeans.KMeansParams;
import dev.lancelot.engine.internal.index.vector.kmeans.KMeansResult;
import dev.lancelot.engine.internal.index.vector.kmeans.Sampling;
import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.engine.vector.VectorException;
import java.util.SplittableRandom;

/**
 * Trains a PQ codebook as Lance ({@code build_pq_model}, {@code PQBuildParams::build}): sample
 * {@code sampleRate × 256} rows, then per sub-space plain l2 k-means with 256 clusters (random
 * init, no balance penalty), whatever the index metric.
 *
 * <p>The caller passes vectors already in code space: for l2 and cosine indexes the residuals
 * {@code vector - ivfCentroid} (after normalizing, for cosine); for dot the raw vectors (Lance's
 * {@code use_residual} is false for dot). {@link PqCodebook#usesResidual} says which.
 */
public final class PqTrainer {
  private PqTrainer() {}

  public static PqCodebook train(
      float[] vectors, int count, int dim, DistanceMetric indexMetric, PqBuildParams params) {
    String action = "train PQ with num_sub_vectors=" + params.numSubVectors();
    if (indexMetric == DistanceMetric.HAMMING) {
      throw new VectorException(
          "Cannot "
              + action
              + " for hamming: PQ needs float vectors. Use a flat"
              + " search for uint8 (binary) vectors.");
    }
    params.checkDimension(dim);
    VectorChecks.checkTrainingBlock(action, vectors, count, dim);
    if (count < PqCodebook.NUM_CENTROIDS) {
      throw new VectorException(
          "Cannot "
              + action
              + ": only "
              + count
              + " rows to train on, and 8-bit PQ"
              + " needs at least 256 (one per centroid). Add rows, or use IVF_FLAT or IVF_SQ for small data.");
    }
    SplittableRandom random = new SplittableRandom(params.seed());
    int n = count;
    float[] sample = vectors;
    if (count > params.sampleSize()) {
      int[] rows = Sampling.distinct(count, (int) params.sampleSize(), random);
      sample = Sampling.gather(vectors, dim, rows);
      n = rows.length;
    }
    int m = params.numSubVectors();
    int subDim = dim / m;
    float[] codebook = new float[PqCodebook.NUM_CENTROIDS * dim];
    float[] sub = new float[n * subDim];
    for (int s = 0; s < m; s++) {
      for (int i = 0; i < n; i++) {
        System.arraycopy(sample, i * dim + s * subDim, sub, i * subDim, subDim);
      }
      KMeansResult result =
          KMeans.train(
              sub,
              n,
              subDim,
              PqCodebook.NUM_CENTROIDS,
              DistanceMetric.L2,
              KMeansParams.forPq(params.maxIters(), random.nextLong()));
      System.arraycopy(
          result.centroids(),
          0,
          codebook,
          s * PqCodebook.NUM_CENTROIDS * subDim,
          PqCodebook.NUM_CENTROIDS * subDim);
    }
    return PqCodebook.owning(codebook, dim, m, indexMetric);
  }
}
