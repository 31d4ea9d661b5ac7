package dev.lancelot.engine.internal.index.vector.build;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.index.vector.ivf.IvfBuildParams;
import dev.lancelot.engine.internal.index.vector.ivf.IvfModel;
import dev.lancelot.engine.internal.index.vector.ivf.IvfTrainer;
import dev.lancelot.engine.internal.index.vector.kmeans.Sampling;
import dev.lancelot.engine.internal.index.vector.pq.PqBuildParams;
import dev.lancelot.engine.internal.index.vector.pq.PqCodebook;
import dev.lancelot.engine.internal.index.vector.pq.PqTrainer;
import dev.lancelot.engine.internal.index.vector.rq.RabitQuantizer;
import dev.lancelot.engine.internal.index.vector.sq.ScalarQuantizer;
import dev.lancelot.engine.internal.index.vector.sq.SqBuildParams;
import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.engine.vector.VectorException;
import java.util.List;
import java.util.SplittableRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Trains an index model as Lance's builder does: a seeded uniform sample of the live rows for IVF
 * ({@code numPartitions × sampleRate} rows; for SQ at least {@code 256 × sampleRate}), IVF k-means
 * on it (normalized for cosine), then the PQ codebook on a second sample of {@code 256 ×
 * sampleRate} rows drawn independently of the first ({@link TrainingRows}): their residuals against
 * their centroids (l2, cosine) or the vectors themselves (dot); or the SQ bounds on the IVF sample;
 * or, for RaBitQ, a random rotation (no training data, as Lance). One scan gathers both samples and
 * checks every vector.
 */
final class ModelTrainer {
  private static final Logger LOG = LoggerFactory.getLogger(ModelTrainer.class);

  private ModelTrainer() {}

  static TrainedModel train(
      Dataset dataset,
      VectorColumn column,
      VectorIndexSpec spec,
      List<DataFragment> fragments,
      String action) {
    long live = VectorScan.liveRows(fragments);
    int dim = column.dimension();
    int partitions = spec.partitionsFor(live);
    if (spec.usesPq()) {
      new PqBuildParams(
              spec.numSubVectors(), spec.numBits(), spec.maxIters(), spec.sampleRate(), spec.seed())
          .checkDimension(dim);
    }
    if (spec.usesRq() && dim % 8 != 0) {
      throw new VectorException(
          "Cannot "
              + action
              + ": the column has dimension "
              + dim
              + ", and IVF_RQ needs a dimension divisible by 8 (as Lance). Use another index type.");
    }
    if (live < partitions) {
      throw new VectorException(
          "Cannot "
              + action
              + ": there are "
              + live
              + " rows to train on, fewer than the "
              + partitions
              + " IVF partitions. Use at most "
              + Math.max(1, live)
              + " partitions, or add rows first.");
    }
    if (spec.usesPq() && live < PqCodebook.NUM_CENTROIDS) {
      throw new VectorException(
          "Cannot "
              + action
              + ": there are "
              + live
              + " rows, and 8-bit PQ needs at least 256"
              + " to train its codebook. Add rows, or use IVF_FLAT or IVF_SQ for small data.");
    }
    int maxRows = Integer.MAX_VALUE / Math.max(1, dim);
    long ivfWanted = (long) partitions * spec.sampleRate();
    if (spec.usesSq()) {
      ivfWanted = Math.max(ivfWanted, (long) PqCodebook.NUM_CENTROIDS * spec.sampleRate());
    }
    int ivfSize = (int) Math.min(live, Math.min(ivfWanted, maxRows));
    int pqSize =
        spec.usesPq()
            ? (int)
                Math.min(
                    live, Math.min((long) PqCodebook.NUM_CENTROIDS * spec.sampleRate(), maxRows))
            : 0;
    SplittableRandom random = new SplittableRandom(spec.seed());
    TrainingRows rows = TrainingRows.draw(Math.toIntExact(live), ivfSize, pqSize, random);
    int[] ivfRows = rows.ivf();
    int[] pqRows = rows.pq();
    float[] sample = new float[ivfSize * dim];
    float[] pqSample = new float[pqSize * dim];
    long start = System.nanoTime();
    int[] cursor = {0, 0};
    long[] seen = {0};
    VectorScan.scan(
        dataset,
        column,
        fragments,
        action,
        (addresses, vectors, count) -> {
          for (int i = 0; i < count; i++, seen[0]++) {
            if (cursor[0] < ivfRows.length && ivfRows[cursor[0]] == seen[0]) {
              System.arraycopy(vectors, i * dim, sample, cursor[0] * dim, dim);
              cursor[0]++;
            }
            if (cursor[1] < pqRows.length && pqRows[cursor[1]] == seen[0]) {
              System.arraycopy(vectors, i * dim, pqSample, cursor[1] * dim, dim);
              cursor[1]++;
            }
          }
        });
    if (cursor[0] != ivfSize || cursor[1] != pqSize) {
      throw new IllegalStateException(
          "scanned " + seen[0] + " rows, expected " + live + " from the manifest");
    }
    LOG.info(
        "Index training samples: {} rows for IVF{} of {} rows ({}-dimensional), {} ms",
        ivfSize,
        spec.usesPq() ? ", " + pqSize + " for PQ" : "",
        live,
        dim,
        (System.nanoTime() - start) / 1_000_000);

    start = System.nanoTime();
    DistanceMetric metric = spec.metric();
    IvfModel ivf =
        IvfTrainer.train(
            sample,
            ivfSize,
            dim,
            metric,
            new IvfBuildParams(partitions, spec.maxIters(), spec.sampleRate(), random.nextLong()));
    LOG.info(
        "Trained IVF: {} partitions, metric {}, loss {}, {} ms",
        partitions,
        metric.lanceName(),
        ivf.loss(),
        (System.nanoTime() - start) / 1_000_000);

    PqCodebook codebook = null;
    ScalarQuantizer quantizer = null;
    RabitQuantizer rabit = null;
    start = System.nanoTime();
    if (spec.usesPq()) {
      float[] space = codeSpace(ivf, pqSample, pqSize);
      codebook =
          PqTrainer.train(
              space,
              pqSize,
              dim,
              metric,
              new PqBuildParams(
                  spec.numSubVectors(),
                  spec.numBits(),
                  spec.maxIters(),
                  spec.sampleRate(),
                  random.nextLong()));
      LOG.info(
          "Trained PQ codebook: {} sub-vectors × 256 centroids, {} ms",
          spec.numSubVectors(),
          (System.nanoTime() - start) / 1_000_000);
    } else if (spec.usesSq()) {
      quantizer =
          ScalarQuantizer.train(
              sample,
              ivfSize,
              dim,
              metric,
              new SqBuildParams(spec.numBits(), spec.sampleRate(), random.nextLong()));
      LOG.info(
          "Trained SQ bounds [{}, {}], {} ms",
          quantizer.start(),
          quantizer.end(),
          (System.nanoTime() - start) / 1_000_000);
    } else if (spec.usesRq()) {
      rabit = RabitQuantizer.create(dim, spec.numBits(), metric, random);
      LOG.info(
          "Drew the RaBitQ rotation: {} coordinates ({} bits per dimension)",
          rabit.codeDim(),
          rabit.numBits());
    }
    return new TrainedModel(spec.type(), metric, ivf, codebook, quantizer, rabit);
  }

  /**
   * Which live rows (ordinals in scan order, ascending) train IVF and PQ. PQ's rows are drawn
   * independently of IVF's, as Lance's builder samples once for IVF and again for the quantizer:
   * k-means fits each centroid to its own training rows, so their residuals are smaller than those
   * of the other rows the codebook will encode (on 1,000,000 × 128 rows, 40.6 against 41.4 per row,
   * squared l2), and a codebook trained on them is fitted to residuals smaller than most it
   * encodes. The two samples may share rows, and are both every row when there are no more rows
   * than wanted.
   */
  record TrainingRows(int[] ivf, int[] pq) {
    static TrainingRows draw(int live, int ivfSize, int pqSize, SplittableRandom random) {
      int[] ivf = Sampling.distinct(live, ivfSize, random);
      int[] pq = pqSize == 0 ? new int[0] : Sampling.distinct(live, pqSize, random);
      return new TrainingRows(ivf, pq);
    }
  }

  /**
   * The vectors PQ trains on: normalized for cosine, then minus their centroid for l2 and cosine
   * (Lance's residuals), unchanged for dot. Zero vectors of a cosine index (never indexed) become
   * zero rows.
   */
  private static float[] codeSpace(IvfModel ivf, float[] sample, int n) {
    int dim = ivf.dimension();
    int[] parts = new int[n];
    ivf.assign(sample, 0, n, parts, null);
    float[] out = new float[n * dim];
    boolean residual = PqCodebook.usesResidual(ivf.metric());
    for (int i = 0; i < n; i++) {
      if (parts[i] < 0) {
        continue;
      }
      float[] prepared =
          ivf.prepareQuery(java.util.Arrays.copyOfRange(sample, i * dim, (i + 1) * dim));
      if (residual) {
        ivf.residual(prepared, 0, parts[i], out, i * dim);
      } else {
        System.arraycopy(prepared, 0, out, i * dim, dim);
      }
    }
    return out;
  }
}
