package dev.lancelot.engine.internal.index.vector.build;

import dev.lancelot.engine.internal.index.vector.ivf.IvfModel;
import dev.lancelot.engine.internal.index.vector.pq.PqCodebook;
import dev.lancelot.engine.internal.index.vector.rq.RabitQuantizer;
import dev.lancelot.engine.internal.index.vector.sq.ScalarQuantizer;
import dev.lancelot.engine.vector.DistanceMetric;
import java.util.stream.IntStream;

/**
 * Assigns and encodes blocks of vectors with a trained model, as Lance stores them: normalized for
 * cosine; flat keeps the (normalized) vector, SQ its 8-bit codes, PQ the codes of its residual
 * against the centroid (l2, cosine) or of the vector (dot), RaBitQ the codes and factors of its
 * residual ({@link RabitQuantizer#encode}). Vectors Lance leaves out (zero vectors of a cosine
 * index) are counted and skipped. Blocks are encoded in parallel chunks whose outputs have fixed
 * positions, so the result does not depend on scheduling.
 */
final class SegmentEncoder {
  private static final int CHUNK = 1024;

  private final TrainedModel model;
  private final IvfModel ivf;
  private final int dim;
  private final PartitionAccumulator acc;
  private final float[][] centroids;
  private double loss;
  private long skipped;

  SegmentEncoder(TrainedModel model) {
    this.model = model;
    this.ivf = model.ivf();
    this.dim = ivf.dimension();
    this.acc = new PartitionAccumulator(ivf.numPartitions(), model.codeWidth(), model.flat());
    this.centroids = new float[ivf.numPartitions()][];
    if (model.rabit() != null) {
      for (int p = 0; p < centroids.length; p++) {
        centroids[p] = ivf.centroid(p);
      }
    }
  }

  void add(long[] addresses, float[] vectors, int count) {
    int[] parts = new int[count];
    float[] dists = new float[count];
    ivf.assign(vectors, 0, count, parts, dists);
    int width = model.codeWidth();
    boolean flat = model.flat();
    float[] prepared = new float[count * dim];
    byte[] codes = flat ? null : new byte[count * width];
    int chunks = (count + CHUNK - 1) / CHUNK;
    IntStream.range(0, chunks)
        .parallel()
        .forEach(
            c ->
                encodeRange(
                    vectors, parts, c * CHUNK, Math.min(count, (c + 1) * CHUNK), prepared, codes));
    for (int i = 0; i < count; i++) {
      if (parts[i] < 0) {
        skipped++;
        continue;
      }
      loss += dists[i];
      if (flat) {
        acc.add(parts[i], addresses[i], prepared, i * dim);
      } else {
        acc.add(parts[i], addresses[i], codes, i * width);
      }
    }
  }

  private void encodeRange(
      float[] vectors, int[] parts, int from, int to, float[] prepared, byte[] codes) {
    PqCodebook pq = model.codebook();
    ScalarQuantizer sq = model.quantizer();
    RabitQuantizer rq = model.rabit();
    float[] rotated = rq == null ? null : new float[rq.codeDim()];
    boolean cosine = model.metric() == DistanceMetric.COSINE;
    boolean residual = pq != null && PqCodebook.usesResidual(model.metric());
    float[] space = new float[dim];
    float[] scratch = new float[PqCodebook.NUM_CENTROIDS];
    for (int i = from; i < to; i++) {
      if (parts[i] < 0) {
        continue;
      }
      System.arraycopy(vectors, i * dim, prepared, i * dim, dim);
      if (cosine) {
        DistanceMetric.normalize(prepared, i * dim, dim);
      }
      if (pq != null) {
        if (residual) {
          ivf.residual(prepared, i * dim, parts[i], space, 0);
        } else {
          System.arraycopy(prepared, i * dim, space, 0, dim);
        }
        pq.encode(space, 0, codes, i * pq.numSubVectors(), scratch);
      } else if (sq != null) {
        sq.encode(prepared, i * dim, codes, i * dim);
      } else if (rq != null) {
        rq.encode(prepared, i * dim, centroids[parts[i]], codes, i * rq.rowBytes(), rotated);
      }
    }
  }

  /** Sum over indexed rows of the distance to their centroid (Lance records it as the IVF loss). */
  double loss() {
    return loss;
  }

  /** Rows left out (zero vectors of a cosine index). */
  long skipped() {
    return skipped;
  }

  PartitionAccumulator accumulator() {
    return acc;
  }
}
