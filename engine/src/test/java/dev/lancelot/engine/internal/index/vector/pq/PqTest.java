package dev.lancelot.engine.internal.index.vector.pq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.engine.vector.VectorException;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PqTest {
  private static final int DIM = 8;
  private static final int M = 4;

  private static float[] randomCodebook(long seed) {
    Random r = new Random(seed);
    float[] cb = new float[256 * DIM];
    for (int i = 0; i < cb.length; i++) {
      cb[i] = (float) r.nextGaussian();
    }
    return cb;
  }

  @Test
  void codebookLayoutIsSubspaceMajorAsLance() {
    float[] cb = new float[256 * DIM];
    for (int i = 0; i < cb.length; i++) {
      cb[i] = i;
    }
    PqCodebook pq = PqCodebook.of(cb, DIM, M, DistanceMetric.L2);
    // Centroid c of sub-vector s starts at (s * 256 + c) * subDim.
    assertThat(pq.centroidValue(0, 0, 0)).isEqualTo(0f);
    assertThat(pq.centroidValue(0, 1, 0)).isEqualTo(2f);
    assertThat(pq.centroidValue(1, 0, 0)).isEqualTo(512f);
    assertThat(pq.centroidValue(3, 255, 1)).isEqualTo((3 * 256 + 255) * 2 + 1);
  }

  @Test
  void encodesToTheNearestCentroidPerSubspaceAndScoresByTableSum() {
    for (DistanceMetric metric : new DistanceMetric[] {DistanceMetric.L2, DistanceMetric.DOT}) {
      PqCodebook pq = PqCodebook.of(randomCodebook(1), DIM, M, metric);
      Random r = new Random(2);
      int rows = 37;
      float[] vectors = new float[rows * DIM];
      for (int i = 0; i < vectors.length; i++) {
        vectors[i] = (float) r.nextGaussian();
      }
      byte[] codes = pq.encodeAll(vectors, 0, rows);
      for (int row = 0; row < rows; row++) {
        for (int s = 0; s < M; s++) {
          int best = 0;
          float bestD = Float.MAX_VALUE;
          for (int c = 0; c < 256; c++) {
            float d = 0;
            for (int j = 0; j < 2; j++) {
              float diff = vectors[row * DIM + s * 2 + j] - pq.centroidValue(s, c, j);
              d += diff * diff;
            }
            if (d < bestD) {
              bestD = d;
              best = c;
            }
          }
          assertThat(codes[row * M + s] & 0xFF)
              .as("%s row %d sub %d", metric, row, s)
              .isEqualTo(best);
        }
      }
      float[] query = new float[DIM];
      for (int i = 0; i < DIM; i++) {
        query[i] = (float) r.nextGaussian();
      }
      float[] table = pq.lookupTable(query);
      byte[] transposed = PqCodes.transpose(codes, rows, M);
      assertThat(PqCodes.untranspose(transposed, rows, M)).containsExactly(codes);
      float[] adc = new float[rows];
      PqPartitionScorer.score(table, transposed, 0, rows, M, pq.tableCorrection(), adc);
      float[] decoded = new float[DIM];
      for (int row = 0; row < rows; row++) {
        pq.decode(codes, row * M, 1, decoded, 0);
        // ADC equals the metric between the query and the decoded approximation.
        assertThat(adc[row]).isCloseTo(metric.distance(query, 0, decoded, 0, DIM), within(1e-4f));
        assertThat(
                PqPartitionScorer.scoreOne(
                    table, transposed, 0, rows, M, pq.tableCorrection(), row))
            .isCloseTo(adc[row], within(1e-5f));
      }
      PqStorage storage = PqStorage.of(pq, transposed, rows);
      float[] range = new float[5];
      storage.scorer(query).scoreRange(10, 5, range);
      for (int i = 0; i < 5; i++) {
        assertThat(range[i]).isCloseTo(adc[10 + i], within(1e-5f));
      }
      assertThat(storage.metric()).isEqualTo(metric);
    }
  }

  @Test
  void residualsForL2AndCosineNotForDot() {
    assertThat(PqCodebook.usesResidual(DistanceMetric.L2)).isTrue();
    assertThat(PqCodebook.usesResidual(DistanceMetric.COSINE)).isTrue();
    assertThat(PqCodebook.usesResidual(DistanceMetric.DOT)).isFalse();
    assertThat(PqCodebook.of(randomCodebook(1), DIM, M, DistanceMetric.COSINE).tableMetric())
        .isEqualTo(DistanceMetric.L2);
  }

  @Test
  void trainedCodebookReconstructsWell() {
    Random r = new Random(8);
    int rows = 2000;
    float[] v = new float[rows * DIM];
    for (int i = 0; i < v.length; i++) {
      v[i] = (float) r.nextGaussian();
    }
    PqCodebook pq =
        PqTrainer.train(v, rows, DIM, DistanceMetric.L2, new PqBuildParams(M, 8, 20, 256, 3));
    byte[] codes = pq.encodeAll(v, 0, rows);
    float[] decoded = new float[DIM];
    double err = 0;
    double energy = 0;
    for (int row = 0; row < rows; row++) {
      pq.decode(codes, row * M, 1, decoded, 0);
      err += DistanceMetric.L2.distance(v, row * DIM, decoded, 0, DIM);
      energy += DistanceMetric.L2.distance(v, row * DIM, new float[DIM], 0, DIM);
    }
    // 256 centroids per 2-d sub-space leave a small fraction of the energy.
    assertThat(err / energy).isLessThan(0.05);
  }

  @Test
  void badInputsAreRefusedWithClearMessages() {
    assertThatThrownBy(
            () ->
                PqTrainer.train(
                    new float[300 * 10], 300, 10, DistanceMetric.L2, PqBuildParams.of(4, 1)))
        .isInstanceOf(VectorException.class)
        .hasMessage(
            "Cannot build PQ with num_sub_vectors=4 on 10-dimensional vectors: the dimension must be"
                + " divisible by num_sub_vectors. Choose a divisor of 10 (for example 5).");
    assertThatThrownBy(
            () ->
                PqTrainer.train(
                    new float[100 * 8], 100, 8, DistanceMetric.L2, PqBuildParams.of(4, 1)))
        .isInstanceOf(VectorException.class)
        .hasMessage(
            "Cannot train PQ with num_sub_vectors=4: only 100 rows to train on, and 8-bit PQ needs at"
                + " least 256 (one per centroid). Add rows, or use IVF_FLAT or IVF_SQ for small data.");
    assertThatThrownBy(() -> new PqBuildParams(4, 4, 50, 256, 1))
        .isInstanceOf(VectorException.class)
        .hasMessage(
            "Cannot build PQ with num_bits=4: only 8-bit codes are implemented. Use num_bits=8.");
    float[] inf = new float[300 * 8];
    inf[8 * 299] = Float.POSITIVE_INFINITY;
    assertThatThrownBy(
            () -> PqTrainer.train(inf, 300, 8, DistanceMetric.L2, PqBuildParams.of(4, 1)))
        .isInstanceOf(VectorException.class)
        .hasMessage(
            "Cannot train PQ with num_sub_vectors=4: vector at row 299 has a infinite value at"
                + " position 0. Remove or fix non-finite vectors (and null rows) before training an index.");
  }
}
