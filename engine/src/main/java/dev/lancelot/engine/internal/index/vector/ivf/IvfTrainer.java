package dev.lancelot.engine.internal.index.vector.ivf;

import dev.lancelot.engine.internal.index.vector.VectorChecks;
import dev.lancelot.engine.internal.index.vector.kmeans.KMeans;
import dev.lancelot.engine.internal.index.vector.kmeans.KMeansParams;
import dev.lancelot.engine.internal.index.vector.kmeans.KMeansResult;
import dev.lancelot.engine.internal.index.vector.kmeans.Sampling;
import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.engine.vector.VectorException;
import java.util.SplittableRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Trains IVF centroids as Lance's {@code build_ivf_model}: sample {@code numPartitions ×
 * sampleRate} rows (seeded, uniformly, without replacement) when there are more, normalize them for
 * cosine and train with l2, then balanced k-means (factor 1.0) with random init.
 */
public final class IvfTrainer {
  private static final Logger LOG = LoggerFactory.getLogger(IvfTrainer.class);

  private IvfTrainer() {}

  /** Trains on {@code count} row-major vectors of {@code dim} floats. */
  public static IvfModel train(
      float[] vectors, int count, int dim, DistanceMetric metric, IvfBuildParams params) {
    String action = "train IVF with " + params.numPartitions() + " partitions";
    if (metric == DistanceMetric.HAMMING) {
      throw new VectorException(
          "Cannot "
              + action
              + " for hamming on float vectors: hamming needs uint8"
              + " (binary) vectors. Train a BinaryIvfModel on the uint8 vectors, or use l2, cosine or dot.");
    }
    VectorChecks.checkTrainingBlock(action, vectors, count, dim);
    if (count < params.numPartitions()) {
      throw new VectorException(
          "Cannot "
              + action
              + ": only "
              + count
              + " rows to train on. Use at most "
              + count
              + " partitions, or add rows before building the index.");
    }
    SplittableRandom random = new SplittableRandom(params.seed());
    float[] sample;
    int n;
    if (count > params.sampleSize()) {
      int[] rows = Sampling.distinct(count, (int) params.sampleSize(), random);
      sample = Sampling.gather(vectors, dim, rows);
      n = rows.length;
      LOG.info("IVF training sample: {} of {} rows", n, count);
    } else {
      sample = vectors.clone();
      n = count;
    }
    DistanceMetric kmeansMetric = metric;
    if (metric == DistanceMetric.COSINE) {
      // Normalize; zero vectors have no direction and are dropped, as Lance's is_finite filter
      // does.
      int kept = 0;
      for (int i = 0; i < n; i++) {
        if (DistanceMetric.normalizeOrFalse(sample, i * dim, dim)) {
          System.arraycopy(sample, i * dim, sample, kept * dim, dim);
          kept++;
        }
      }
      if (kept < n) {
        LOG.info("IVF training: dropped {} zero vectors (no direction for cosine)", n - kept);
      }
      if (kept < params.numPartitions()) {
        throw new VectorException(
            "Cannot "
                + action
                + " for cosine: only "
                + kept
                + " of the "
                + n
                + " training rows are non-zero vectors. Use at most "
                + kept
                + " partitions, or add non-zero rows.");
      }
      n = kept;
      kmeansMetric = DistanceMetric.L2;
    }
    KMeansResult result =
        KMeans.train(
            sample,
            n,
            dim,
            params.numPartitions(),
            kmeansMetric,
            KMeansParams.forIvf(params.maxIters(), random.nextLong()));
    return IvfModel.owning(result.centroids(), dim, metric, result.loss());
  }
}
