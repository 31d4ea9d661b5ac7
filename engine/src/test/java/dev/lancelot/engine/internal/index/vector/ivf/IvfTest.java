package dev.lancelot.engine.internal.index.vector.ivf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.engine.vector.VectorException;
import java.util.Random;
import org.junit.jupiter.api.Test;

class IvfTest {
  private static final float[] CENTROIDS = {0, 0, 10, 0, 0, 10, -10, -10};

  @Test
  void ranksPartitionsNearestFirstWithDistances() {
    IvfModel ivf = IvfModel.of(CENTROIDS, 2, DistanceMetric.L2, 0);
    PartitionRanking r = ivf.rankPartitions(new float[] {9, 1}, 10);
    assertThat(r.partitions()).containsExactly(1, 0, 2, 3);
    assertThat(r.distances()).containsExactly(2f, 82f, 162f, 482f);
    assertThat(ivf.rankPartitions(new float[] {9, 1}, 2).partitions()).containsExactly(1, 0);
  }

  @Test
  void tiesRankBySmallerPartition() {
    IvfModel ivf = IvfModel.of(new float[] {1, 0, 0, 1, -1, 0}, 2, DistanceMetric.L2, 0);
    assertThat(ivf.rankPartitions(new float[] {0, 0}, 3).partitions()).containsExactly(0, 1, 2);
  }

  @Test
  void cosineNormalizesTheQueryAndUsesL2OnCentroids() {
    IvfModel ivf = IvfModel.of(new float[] {1, 0, 0, 1}, 2, DistanceMetric.COSINE, 0);
    PartitionRanking small = ivf.rankPartitions(new float[] {0.1f, 0.05f}, 2);
    PartitionRanking big = ivf.rankPartitions(new float[] {100, 50}, 2);
    assertThat(small.partitions()).containsExactly(big.partitions());
    assertThat(small.distances()[0]).isEqualTo(big.distances()[0]);
    assertThat(ivf.centroidMetric()).isEqualTo(DistanceMetric.L2);
  }

  @Test
  void cosineLeavesZeroVectorsOutAsLance() {
    IvfModel ivf = IvfModel.of(new float[] {1, 0, 0, 1}, 2, DistanceMetric.COSINE, 0);
    assertThat(ivf.assign(new float[] {0, 0}, 0)).isEqualTo(-1);
    assertThat(ivf.assign(new float[] {0, 3}, 0)).isEqualTo(1);
    float[] v = new float[200];
    for (int i = 0; i < 50; i++) {
      v[4 * i] = 1 + i % 3; // rows alternate between (x, 0) and (0, 0)
    }
    IvfModel trained = IvfTrainer.train(v, 100, 2, DistanceMetric.COSINE, IvfBuildParams.of(1, 1));
    assertThat(trained.centroid(0)).containsExactly(1f, 0f);
    assertThatThrownBy(
            () -> IvfTrainer.train(v, 100, 2, DistanceMetric.COSINE, IvfBuildParams.of(60, 1)))
        .isInstanceOf(VectorException.class)
        .hasMessage(
            "Cannot train IVF with 60 partitions for cosine: only 50 of the 100 training rows are non-zero"
                + " vectors. Use at most 50 partitions, or add non-zero rows.");
  }

  @Test
  void dotRanksByOneMinusProduct() {
    IvfModel ivf = IvfModel.of(new float[] {1, 0, 3, 0}, 2, DistanceMetric.DOT, 0);
    PartitionRanking r = ivf.rankPartitions(new float[] {1, 0}, 2);
    assertThat(r.partitions()).containsExactly(1, 0);
    assertThat(r.distances()).containsExactly(-2f, 0f);
  }

  @Test
  void bulkAssignmentIsTheNearestCentroid() {
    IvfModel ivf = IvfModel.of(CENTROIDS, 2, DistanceMetric.L2, 0);
    Random random = new Random(3);
    float[] v = new float[2000];
    for (int i = 0; i < v.length; i++) {
      v[i] = (float) random.nextGaussian() * 8;
    }
    int[] parts = new int[1000];
    float[] dists = new float[1000];
    ivf.assign(v, 0, 1000, parts, dists);
    for (int i = 0; i < 1000; i++) {
      int best = 0;
      for (int p = 1; p < 4; p++) {
        if (DistanceMetric.L2.distance(v, 2 * i, CENTROIDS, 2 * p, 2)
            < DistanceMetric.L2.distance(v, 2 * i, CENTROIDS, 2 * best, 2)) {
          best = p;
        }
      }
      assertThat(parts[i]).isEqualTo(best);
      assertThat(dists[i]).isEqualTo(DistanceMetric.L2.distance(v, 2 * i, CENTROIDS, 2 * best, 2));
    }
    assertThat(ivf.assign(new float[] {Float.NaN, 0}, 0)).isEqualTo(-1);
    float[] res = new float[2];
    ivf.residual(new float[] {9, 1}, 0, 1, res, 0);
    assertThat(res).containsExactly(-1f, 1f);
  }

  @Test
  void trainsCentroidsNearTheClusters() {
    Random random = new Random(5);
    int n = 3000;
    float[] v = new float[n * 2];
    for (int i = 0; i < n; i++) {
      int c = i % 4;
      v[2 * i] = CENTROIDS[2 * c] + 0.2f * (float) random.nextGaussian();
      v[2 * i + 1] = CENTROIDS[2 * c + 1] + 0.2f * (float) random.nextGaussian();
    }
    IvfModel ivf = IvfTrainer.train(v, n, 2, DistanceMetric.L2, new IvfBuildParams(4, 50, 256, 1));
    for (int c = 0; c < 4; c++) {
      int p = ivf.assign(CENTROIDS, 2 * c);
      assertThat(DistanceMetric.L2.distance(ivf.centroid(p), 0, CENTROIDS, 2 * c, 2))
          .isLessThan(0.05f);
    }
    assertThat(ivf.loss()).isGreaterThan(0);
    // Same seed, same model.
    assertThat(
            IvfTrainer.train(v, n, 2, DistanceMetric.L2, new IvfBuildParams(4, 50, 256, 1))
                .copyCentroids())
        .containsExactly(ivf.copyCentroids());
  }

  @Test
  void binaryIvfClustersBitPatternsWithKModes() {
    // Four prototypes of 8 bytes; rows flip a few random bits of one of them.
    Random random = new Random(21);
    byte[][] protos = new byte[4][8];
    for (byte[] p : protos) {
      random.nextBytes(p);
    }
    int n = 2000;
    byte[] v = new byte[n * 8];
    for (int i = 0; i < n; i++) {
      System.arraycopy(protos[i % 4], 0, v, i * 8, 8);
      for (int f = 0; f < 3; f++) {
        int bit = random.nextInt(64);
        v[i * 8 + bit / 8] ^= (byte) (1 << (bit % 8));
      }
    }
    BinaryIvfModel ivf = BinaryIvfModel.train(v, n, 8, new IvfBuildParams(4, 20, 256, 3));
    // The majority vote recovers each prototype exactly.
    for (byte[] p : protos) {
      PartitionRanking r = ivf.rankPartitions(p, 1);
      assertThat(r.distances()[0]).isEqualTo(0f);
    }
    int[] parts = new int[n];
    ivf.assign(v, 0, n, parts);
    for (int i = 4; i < n; i++) {
      assertThat(parts[i]).isEqualTo(parts[i % 4]);
    }
    assertThat(BinaryIvfModel.train(v, n, 8, new IvfBuildParams(4, 20, 256, 3)).copyCentroids())
        .containsExactly(ivf.copyCentroids());
  }

  @Test
  void badInputsAreRefusedWithClearMessages() {
    assertThatThrownBy(
            () ->
                IvfTrainer.train(new float[20], 10, 2, DistanceMetric.L2, IvfBuildParams.of(16, 1)))
        .isInstanceOf(VectorException.class)
        .hasMessage(
            "Cannot train IVF with 16 partitions: only 10 rows to train on. Use at most 10 partitions,"
                + " or add rows before building the index.");
    float[] withNaN = new float[40];
    withNaN[13] = Float.NaN;
    assertThatThrownBy(
            () -> IvfTrainer.train(withNaN, 20, 2, DistanceMetric.L2, IvfBuildParams.of(2, 1)))
        .isInstanceOf(VectorException.class)
        .hasMessage(
            "Cannot train IVF with 2 partitions: vector at row 6 has a NaN value at position 1."
                + " Remove or fix non-finite vectors (and null rows) before training an index.");
    assertThatThrownBy(
            () -> IvfTrainer.train(null, 20, 2, DistanceMetric.L2, IvfBuildParams.of(2, 1)))
        .isInstanceOf(VectorException.class)
        .hasMessageStartingWith(
            "Cannot train IVF with 2 partitions: the training vectors are null.");
    assertThatThrownBy(
            () ->
                IvfTrainer.train(
                    new float[40], 20, 2, DistanceMetric.HAMMING, IvfBuildParams.of(2, 1)))
        .isInstanceOf(VectorException.class)
        .hasMessage(
            "Cannot train IVF with 2 partitions for hamming on float vectors: hamming needs uint8 (binary)"
                + " vectors. Train a BinaryIvfModel on the uint8 vectors, or use l2, cosine or dot.");
    assertThatThrownBy(() -> IvfBuildParams.of(0, 1))
        .isInstanceOf(VectorException.class)
        .hasMessage(
            "Cannot build IVF: num_partitions is 0. Use at least 1 partition (Lance suggests about sqrt(rows)).");
  }
}
