package dev.lancelot.engine.index.vector.conformance;

import dev.lancelot.engine.internal.index.vector.AcceptMask;
import dev.lancelot.engine.internal.index.vector.SearchResult;
import dev.lancelot.engine.internal.index.vector.TopKCollector;
import dev.lancelot.engine.internal.index.vector.flat.FlatSearch;
import dev.lancelot.engine.vector.DistanceMetric;
import java.util.Random;

/**
 * Seeded clustered Gaussian data: {@code clusters} centers drawn N(0, 1) per dimension, each row a
 * random center plus N(0, spread²) noise; queries drawn the same way from a second stream.
 */
public final class ClusteredData {
  public final int rows;
  public final int dim;
  public final float[] vectors;
  public final float[][] queries;
  public final long seed;

  public ClusteredData(int rows, int dim, int clusters, int queryCount, float spread, long seed) {
    this.rows = rows;
    this.dim = dim;
    this.seed = seed;
    Random random = new Random(seed);
    float[] centers = new float[clusters * dim];
    for (int i = 0; i < centers.length; i++) {
      centers[i] = (float) random.nextGaussian();
    }
    vectors = new float[rows * dim];
    for (int r = 0; r < rows; r++) {
      int c = random.nextInt(clusters);
      for (int d = 0; d < dim; d++) {
        vectors[r * dim + d] = centers[c * dim + d] + spread * (float) random.nextGaussian();
      }
    }
    Random qr = new Random(seed ^ 0x5151_5151L);
    queries = new float[queryCount][dim];
    for (float[] q : queries) {
      int c = qr.nextInt(clusters);
      for (int d = 0; d < dim; d++) {
        q[d] = centers[c * dim + d] + spread * (float) qr.nextGaussian();
      }
    }
  }

  /** Exact top-k by brute force (ties by row id), among rows accepted by {@code mask}. */
  public SearchResult exact(float[] q, int k, DistanceMetric metric, AcceptMask mask) {
    TopKCollector c = new TopKCollector(k);
    FlatSearch.search(q, vectors, dim, metric, mask, null, c, null);
    return c.result();
  }

  public static double recall(SearchResult got, SearchResult truth) {
    int hit = 0;
    for (long id : got.ids()) {
      for (long t : truth.ids()) {
        if (t == id) {
          hit++;
          break;
        }
      }
    }
    return truth.size() == 0 ? 1.0 : (double) hit / truth.size();
  }
}
