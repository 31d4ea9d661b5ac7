package dev.lancelot.engine.internal.index.vector.kmeans;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.engine.vector.VectorException;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class KMeansTest {
  /** Three tight blobs around (0,0), (10,0), (0,10). */
  private static float[] blobs(int perBlob, long seed) {
    Random r = new Random(seed);
    float[][] centers = {{0, 0}, {10, 0}, {0, 10}};
    float[] data = new float[perBlob * 3 * 2];
    for (int i = 0; i < perBlob * 3; i++) {
      float[] c = centers[i % 3];
      data[2 * i] = c[0] + 0.1f * (float) r.nextGaussian();
      data[2 * i + 1] = c[1] + 0.1f * (float) r.nextGaussian();
    }
    return data;
  }

  @Test
  void findsSeparatedClusters() {
    for (KMeansInit init : KMeansInit.values()) {
      float[] data = blobs(100, 1);
      KMeansResult r =
          KMeans.train(data, 300, 2, 3, DistanceMetric.L2, new KMeansParams(50, 1e-4, 0f, init, 7));
      float[][] found = new float[3][];
      for (int c = 0; c < 3; c++) {
        found[c] = Arrays.copyOfRange(r.centroids(), 2 * c, 2 * c + 2);
      }
      Arrays.sort(found, (a, b) -> Float.compare(a[0] + 2 * a[1], b[0] + 2 * b[1]));
      assertThat(found[0][0]).isCloseTo(0f, within(0.1f));
      assertThat(found[1][0]).isCloseTo(10f, within(0.1f));
      assertThat(found[2][1]).isCloseTo(10f, within(0.1f));
      assertThat(r.iterations()).isLessThan(50);
      assertThat(r.loss()).isGreaterThan(0).isLessThan(300 * 0.1);
    }
  }

  @Test
  void sameSeedSameCentroidsBalancedOrNot() {
    float[] data = blobs(200, 3);
    for (float balance : new float[] {0f, 1f}) {
      KMeansParams p = new KMeansParams(20, 1e-4, balance, KMeansInit.RANDOM, 11);
      assertThat(KMeans.train(data, 600, 2, 8, DistanceMetric.L2, p).centroids())
          .containsExactly(KMeans.train(data, 600, 2, 8, DistanceMetric.L2, p).centroids());
    }
  }

  @Test
  void emptyClustersAreRefilledBySplitting() {
    // Ten distinct points, many duplicates: random init may pick duplicates, leaving clusters
    // empty.
    float[] data = new float[200];
    for (int i = 0; i < 100; i++) {
      data[2 * i] = i % 10;
      data[2 * i + 1] = (i % 10) * 0.5f;
    }
    KMeansResult r = KMeans.train(data, 100, 2, 10, DistanceMetric.L2, KMeansParams.forPq(30, 5));
    for (float v : r.centroids()) {
      assertThat(Float.isFinite(v)).isTrue();
    }
    // Every one of the 10 points ends up (close to) a centroid.
    for (int p = 0; p < 10; p++) {
      float best = Float.MAX_VALUE;
      for (int c = 0; c < 10; c++) {
        best = Math.min(best, DistanceMetric.L2.distance(data, 2 * p, r.centroids(), 2 * c, 2));
      }
      assertThat(best).as("point %d", p).isLessThan(0.5f);
    }
  }

  @Test
  void largeKIsTrainedHierarchicallyAsLance() {
    Random r = new Random(12);
    int n = 6000;
    int dim = 4;
    float[] data = new float[n * dim];
    for (int i = 0; i < data.length; i++) {
      data[i] = (float) r.nextGaussian();
    }
    KMeansParams p = KMeansParams.forIvf(10, 3);
    KMeansResult res = KMeans.train(data, n, dim, 300, DistanceMetric.L2, p);
    assertThat(res.k()).isEqualTo(300);
    assertThat(res.centroids()).hasSize(300 * dim);
    assertThat(res.loss()).isZero(); // Lance reports no loss for hierarchical k-means
    assertThat(KMeans.train(data, n, dim, 300, DistanceMetric.L2, p).centroids())
        .containsExactly(res.centroids());
    // The clustering is fine-grained: mean squared distance to the nearest centroid is small.
    float[] columns = new float[300 * dim];
    KMeans.transpose(res.centroids(), 300, dim, columns);
    float[] d = new float[300];
    double total = 0;
    for (int i = 0; i < n; i++) {
      KMeans.distancesToCentroids(data, i * dim, dim, columns, 300, DistanceMetric.L2, d);
      float best = Float.MAX_VALUE;
      for (float x : d) {
        best = Math.min(best, x);
      }
      total += best;
    }
    assertThat(total / n).isLessThan(0.25 * dim);
  }

  @Test
  void dotKMeansRuns() {
    float[] data = blobs(50, 4);
    KMeansResult r = KMeans.train(data, 150, 2, 3, DistanceMetric.DOT, KMeansParams.forIvf(10, 1));
    assertThat(r.centroids()).hasSize(6);
  }

  @Test
  void refusesTooFewRows() {
    assertThatThrownBy(
            () -> KMeans.train(new float[10], 5, 2, 8, DistanceMetric.L2, KMeansParams.forPq(5, 1)))
        .isInstanceOf(VectorException.class)
        .hasMessage(
            "Cannot train k-means with 8 clusters: only 5 training rows. Use at most 5 clusters or"
                + " train on more rows.");
  }

  @Test
  void samplingIsDistinctSortedAndSeeded() {
    int[] a = Sampling.distinct(1000, 100, new java.util.SplittableRandom(9));
    assertThat(a).hasSize(100).isSorted().doesNotHaveDuplicates();
    assertThat(Sampling.distinct(1000, 100, new java.util.SplittableRandom(9))).containsExactly(a);
    assertThat(Sampling.distinct(5, 5, new java.util.SplittableRandom(1)))
        .containsExactly(0, 1, 2, 3, 4);
  }
}
