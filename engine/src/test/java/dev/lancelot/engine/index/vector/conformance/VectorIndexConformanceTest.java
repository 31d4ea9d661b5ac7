package dev.lancelot.engine.index.vector.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.internal.index.vector.AcceptMask;
import dev.lancelot.engine.internal.index.vector.SearchResult;
import dev.lancelot.engine.internal.index.vector.SearchStats;
import dev.lancelot.engine.vector.DistanceMetric;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The suite every vector index type passes (docs/architecture.md §7.12): on seeded clustered
 * Gaussian data ({@value #ROWS} × {@value #DIM}, {@value #CLUSTERS} centers N(0, 1), rows and
 * {@value #QUERIES} queries = a random center + N(0, 0.6²) noise), recall@{@value #K} against brute
 * force is at least {@link #minRecall()}, the average number of distances computed per query stays
 * under {@link #maxDistanceFraction()} × rows, rows outside an accept mask are never returned, and
 * two builds with the same seed answer identically. Subclasses state their parameters and
 * thresholds.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class VectorIndexConformanceTest {
  static final int ROWS = 20_000;
  static final int DIM = 32;
  static final int CLUSTERS = 100;
  static final int QUERIES = 100;
  static final int K = 10;
  static final long SEED = 20_240_601L;

  private static ClusteredData data;
  private TestIndex index;

  static synchronized ClusteredData data() {
    if (data == null) {
      data = new ClusteredData(ROWS, DIM, CLUSTERS, QUERIES, 0.6f, SEED);
    }
    return data;
  }

  /**
   * Builds the index under test over the data with {@code metric}, deterministically from {@code
   * seed}.
   */
  protected abstract TestIndex build(ClusteredData data, DistanceMetric metric, long seed);

  protected abstract double minRecall();

  /** Bound on distances computed per query, as a fraction of all rows (1.0 for a flat scan). */
  protected abstract double maxDistanceFraction();

  protected DistanceMetric metric() {
    return DistanceMetric.L2;
  }

  private synchronized TestIndex index() {
    if (index == null) {
      long start = System.nanoTime();
      index = build(data(), metric(), SEED);
      System.out.printf(
          "%s built in %d ms%n",
          getClass().getSimpleName(), (System.nanoTime() - start) / 1_000_000);
    }
    return index;
  }

  @Test
  void recallAtKMeetsThreshold() {
    ClusteredData d = data();
    double total = 0;
    for (float[] q : d.queries) {
      total +=
          ClusteredData.recall(
              index().search(q, K, null, new SearchStats()), d.exact(q, K, metric(), null));
    }
    double recall = total / d.queries.length;
    System.out.printf(
        "%s recall@%d = %.4f (threshold %.2f, seed %d)%n",
        getClass().getSimpleName(), K, recall, minRecall(), SEED);
    assertThat(recall).as("recall@%d with seed %d", K, SEED).isGreaterThanOrEqualTo(minRecall());
  }

  @Test
  void workPerQueryIsBounded() {
    ClusteredData d = data();
    SearchStats stats = new SearchStats();
    for (float[] q : d.queries) {
      index().search(q, K, null, stats);
    }
    double perQuery = (double) stats.distancesComputed() / d.queries.length;
    System.out.printf(
        "%s distances/query = %.1f, visited/query = %.1f%n",
        getClass().getSimpleName(), perQuery, (double) stats.nodesVisited() / d.queries.length);
    assertThat(perQuery).isGreaterThan(0).isLessThanOrEqualTo(maxDistanceFraction() * ROWS);
    assertThat(stats.nodesVisited())
        .isLessThanOrEqualTo((long) (maxDistanceFraction() * ROWS * d.queries.length));
  }

  @Test
  void maskedRowsAreNeverReturned() {
    ClusteredData d = data();
    Random random = new Random(SEED + 1);
    // A broad mask (about half the rows) and a selective one (about 3%).
    for (double keep : new double[] {0.5, 0.03}) {
      AcceptMask mask = AcceptMask.none(ROWS);
      for (int r = 0; r < ROWS; r++) {
        if (random.nextDouble() < keep) {
          mask.set(r);
        }
      }
      for (int qi = 0; qi < 20; qi++) {
        SearchResult r = index().search(d.queries[qi], K, mask, new SearchStats());
        for (long id : r.ids()) {
          assertThat(mask.get((int) id))
              .as("row %d returned though masked (keep %.2f)", id, keep)
              .isTrue();
        }
        if (keep == 0.5) {
          assertThat(r.size()).isEqualTo(K);
        }
      }
    }
  }

  @Test
  void resultsAreDeterministic() {
    ClusteredData d = data();
    TestIndex again = build(d, metric(), SEED);
    for (int qi = 0; qi < 20; qi++) {
      SearchResult a = index().search(d.queries[qi], K, null, new SearchStats());
      assertThat(again.search(d.queries[qi], K, null, new SearchStats())).isEqualTo(a);
      assertThat(index().search(d.queries[qi], K, null, new SearchStats())).isEqualTo(a);
    }
  }

  @Test
  void resultsAreSortedNearestFirst() {
    SearchResult r = index().search(data().queries[0], K, null, new SearchStats());
    for (int i = 1; i < r.size(); i++) {
      assertThat(r.distances()[i]).isGreaterThanOrEqualTo(r.distances()[i - 1]);
    }
  }
}
