package dev.lancelot.engine.internal.index.vector.kmeans;

import dev.lancelot.engine.vector.DistanceMetric;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * k-means for k above 256, as Lance's {@code train_hierarchical_kmeans}: cluster into {@value
 * #BRANCHING} first, then repeatedly split the largest cluster with a small k-means ({@code 2}
 * clusters when it holds at most 16 rows, else {@code clamp(size / 16, 2, 16)}, never more than
 * still needed) until there are k clusters. A split that puts every row in one sub-cluster
 * finalizes that cluster. Centroids are ordered by creation, the loss is reported as 0 as in Lance.
 * Much cheaper than flat k-means for large k (1,000+ IVF partitions).
 */
final class HierarchicalKMeans {
  static final int BRANCHING = 16;
  private static final Logger LOG = LoggerFactory.getLogger(HierarchicalKMeans.class);

  private HierarchicalKMeans() {}

  private static final class Cluster {
    final int id;
    final int[] rows;
    final float[] centroid;
    boolean finalized;

    Cluster(int id, int[] rows, float[] centroid) {
      this.id = id;
      this.rows = rows;
      this.centroid = centroid;
    }
  }

  static KMeansResult train(
      float[] data, int n, int dim, int targetK, DistanceMetric metric, KMeansParams params) {
    // Lance divides the balance factor by the whole training set once; sub-trainings reuse it.
    float absoluteBalance = params.balanceFactor() / n;
    int initialK = Math.min(Math.min(BRANCHING, targetK), n);
    KMeansResult initial = KMeans.trainFlat(data, n, dim, initialK, metric, params, false);
    PriorityQueue<Cluster> heap =
        new PriorityQueue<>(
            (a, b) -> {
              if (a.finalized != b.finalized) {
                return a.finalized ? 1 : -1; // splittable clusters first
              }
              int c = Integer.compare(b.rows.length, a.rows.length); // larger first
              return c != 0 ? c : Integer.compare(a.id, b.id);
            });
    int nextId = 0;
    int[] all = new int[n];
    Arrays.setAll(all, i -> i);
    for (Cluster c : split(data, dim, all, initial, metric)) {
      heap.add(new Cluster(nextId++, c.rows, c.centroid));
    }
    long seed = params.seed();
    while (heap.size() < targetK) {
      Cluster largest = heap.poll();
      if (largest.finalized || largest.rows.length <= 1) {
        LOG.warn(
            "k-means: cluster {} cannot be split further; finishing with {} of {} clusters",
            largest.id,
            heap.size() + 1,
            targetK);
        heap.add(largest);
        break;
      }
      int size = largest.rows.length;
      int remaining = targetK - heap.size();
      int clusterK =
          size <= BRANCHING
              ? Math.min(Math.min(2, remaining), size)
              : Math.max(2, Math.min(Math.min(size / BRANCHING, remaining), BRANCHING));
      float[] sub = Sampling.gather(data, dim, largest.rows);
      KMeansParams subParams =
          new KMeansParams(
              params.maxIters(), params.tolerance(), absoluteBalance * size, params.init(), ++seed);
      KMeansResult result = KMeans.trainFlat(sub, size, dim, clusterK, metric, subParams, false);
      List<Cluster> parts = split(sub, dim, largest.rows, result, metric);
      if (parts.size() <= 1) {
        largest.finalized = true;
        heap.add(largest);
        continue;
      }
      for (Cluster c : parts) {
        heap.add(new Cluster(nextId++, c.rows, c.centroid));
      }
    }
    LOG.info(
        "Trained hierarchical k-means: k={} (asked {}), dim={}, rows={}, metric={}",
        heap.size(),
        targetK,
        dim,
        n,
        metric.lanceName());
    Cluster[] clusters = heap.toArray(new Cluster[0]);
    Arrays.sort(clusters, (a, b) -> Integer.compare(a.id, b.id));
    float[] centroids = new float[clusters.length * dim];
    for (int i = 0; i < clusters.length; i++) {
      System.arraycopy(clusters[i].centroid, 0, centroids, i * dim, dim);
    }
    return new KMeansResult(centroids, clusters.length, dim, 0.0, 0);
  }

  /**
   * Groups {@code rows} (whose vectors are {@code block}, row-major in the same order) by nearest
   * centroid of {@code result}; empty groups are dropped.
   */
  private static List<Cluster> split(
      float[] block, int dim, int[] rows, KMeansResult result, DistanceMetric metric) {
    int k = result.k();
    float[] columns = new float[k * dim];
    KMeans.transpose(result.centroids(), k, dim, columns);
    float[] scratch = new float[k];
    int[] membership = new int[rows.length];
    int[] sizes = new int[k];
    for (int i = 0; i < rows.length; i++) {
      KMeans.distancesToCentroids(block, i * dim, dim, columns, k, metric, scratch);
      int best = 0;
      for (int c = 1; c < k; c++) {
        if (scratch[c] < scratch[best]) {
          best = c;
        }
      }
      membership[i] = best;
      sizes[best]++;
    }
    List<Cluster> out = new ArrayList<>();
    for (int c = 0; c < k; c++) {
      if (sizes[c] == 0) {
        continue;
      }
      int[] members = new int[sizes[c]];
      int j = 0;
      for (int i = 0; i < rows.length; i++) {
        if (membership[i] == c) {
          members[j++] = rows[i];
        }
      }
      out.add(
          new Cluster(-1, members, Arrays.copyOfRange(result.centroids(), c * dim, (c + 1) * dim)));
    }
    return out;
  }
}
