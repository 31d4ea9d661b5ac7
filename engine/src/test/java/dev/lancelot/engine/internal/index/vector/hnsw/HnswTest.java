package dev.lancelot.engine.internal.index.vector.hnsw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.internal.index.vector.AcceptMask;
import dev.lancelot.engine.internal.index.vector.SearchResult;
import dev.lancelot.engine.internal.index.vector.TopKCollector;
import dev.lancelot.engine.internal.index.vector.flat.FlatSearch;
import dev.lancelot.engine.internal.index.vector.flat.FlatStorage;
import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.engine.vector.VectorException;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HnswTest {
  private static final int N = 3000;
  private static final int DIM = 16;
  private static final HnswBuildParams PARAMS = new HnswBuildParams(8, 64, 5, 17);
  private float[] vectors;
  private FlatStorage storage;
  private HnswGraph graph;

  @BeforeAll
  void build() {
    Random r = new Random(99);
    vectors = new float[N * DIM];
    for (int i = 0; i < vectors.length; i++) {
      vectors[i] = (float) r.nextGaussian();
    }
    storage = FlatStorage.of(vectors, DIM, DistanceMetric.L2);
    graph = HnswBuilder.build(storage, PARAMS);
  }

  @Test
  void layoutMatchesLance() {
    assertThat(graph.numLevels()).isEqualTo(5);
    assertThat(graph.entryPoint()).isZero();
    int[] offsets = graph.levelOffsets();
    assertThat(offsets[0]).isZero();
    assertThat(offsets[1]).isEqualTo(N); // level 0 holds every node
    for (int l = 0; l < graph.numLevels(); l++) {
      int[] nodes = graph.levelNodes(l);
      assertThat(nodes[0]).as("node 0 is on level %d", l).isZero();
      assertThat(nodes).isSorted();
      assertThat(offsets[l + 1] - offsets[l]).isEqualTo(nodes.length);
      for (int node : nodes) {
        int[] nbrs = graph.neighbors(l, node);
        float[] ds = graph.neighborDistances(l, node);
        assertThat(nbrs.length).isLessThanOrEqualTo(PARAMS.maxNeighbors(l));
        for (int i = 0; i < nbrs.length; i++) {
          assertThat(nbrs[i]).isNotEqualTo(node);
          assertThat(ds[i]).isEqualTo(storage.distanceBetween(node, nbrs[i]));
          if (i > 0) {
            assertThat(ds[i]).isGreaterThanOrEqualTo(ds[i - 1]);
          }
          if (l > 0) {
            assertThat(graph.topLevel(nbrs[i])).isGreaterThanOrEqualTo(l);
          }
        }
      }
    }
    int[] lance = graph.lanceLevelOffsets();
    assertThat(lance[1]).isEqualTo(N);
    for (int l = 1; l < graph.numLevels(); l++) {
      assertThat(lance[l + 1] - lance[l]).isEqualTo(offsets[l + 1] - offsets[l] - 1);
    }
    // Level sizes shrink about m-fold: P(level >= 1) = 1/m.
    double upper = graph.levelNodes(1).length / (double) N;
    assertThat(upper).isBetween(0.6 / PARAMS.m(), 1.6 / PARAMS.m());
  }

  @Test
  void searchFindsTrueNeighboursAndRespectsMasks() {
    HnswSearcher searcher = new HnswSearcher();
    Random r = new Random(5);
    double recall = 0;
    for (int q = 0; q < 50; q++) {
      float[] query = new float[DIM];
      for (int d = 0; d < DIM; d++) {
        query[d] = (float) r.nextGaussian();
      }
      SearchResult got = searcher.search(graph, storage.scorer(query), 10, 64, null);
      TopKCollector exact = new TopKCollector(10);
      FlatSearch.search(query, vectors, DIM, DistanceMetric.L2, null, null, exact, null);
      for (long id : got.ids()) {
        for (long t : exact.result().ids()) {
          recall += id == t ? 0.1 / 50 : 0;
        }
      }
      assertThat(searcher.stats().distancesComputed()).isLessThan(N / 2);
      // A 5% mask goes to the exact path: results equal brute force over the mask.
      AcceptMask few = AcceptMask.none(N);
      for (int i = q; i < N; i += 20) {
        few.set(i);
      }
      SearchResult masked = searcher.search(graph, storage.scorer(query), 10, 64, few);
      TopKCollector exactMasked = new TopKCollector(10);
      FlatSearch.search(query, vectors, DIM, DistanceMetric.L2, few, null, exactMasked, null);
      assertThat(masked).isEqualTo(exactMasked.result());
    }
    assertThat(recall).isGreaterThan(0.9);
  }

  @Test
  void rowIdsMapNodesForMergedCollectors() {
    long[] rowIds = new long[N];
    for (int i = 0; i < N; i++) {
      rowIds[i] = (7L << 32) | i;
    }
    TopKCollector c = new TopKCollector(3);
    new HnswSearcher().search(graph, storage.nodeScorer(42), 3, 10, null, rowIds, c);
    assertThat(c.result().ids()[0]).isEqualTo((7L << 32) | 42);
    assertThat(c.result().distances()[0]).isZero();
  }

  @Test
  void efBelowKIsAnError() {
    assertThatThrownBy(() -> new HnswSearcher().search(graph, storage.nodeScorer(0), 12, 8, null))
        .isInstanceOf(VectorException.class)
        .hasMessage(
            "Cannot search HNSW with ef=8: ef must be greater than or equal to k (12), the number of"
                + " candidates asked for (k × refine_factor). Raise ef to at least 12 or leave it unset"
                + " (default k + k/2).");
  }

  @Test
  void sameSeedSameGraphAndCopiesRoundTrip() {
    HnswGraph again = HnswBuilder.build(storage, PARAMS);
    HnswGraph copy =
        HnswGraph.of(
            graph.numNodes(),
            0,
            PARAMS,
            levels(graph, HnswGraph::levelNodes),
            levels(graph, HnswGraph::neighborOffsets),
            levels(graph, HnswGraph::levelNeighbors),
            floats(graph));
    for (int l = 0; l < graph.numLevels(); l++) {
      assertThat(again.levelNeighbors(l)).containsExactly(graph.levelNeighbors(l));
      assertThat(copy.levelDistances(l)).containsExactly(graph.levelDistances(l));
    }
    assertThat(new HnswSearcher().search(copy, storage.nodeScorer(3), 5, 20, null))
        .isEqualTo(new HnswSearcher().search(graph, storage.nodeScorer(3), 5, 20, null));
  }

  @Test
  void badParams() {
    assertThatThrownBy(() -> new HnswBuildParams(1, 100, 7, 0))
        .isInstanceOf(VectorException.class)
        .hasMessage(
            "Cannot build HNSW with m=1: m must be at least 2 (level assignment divides by ln(m))."
                + " Use m between 8 and 64; Lance's default is 20.");
    assertThat(HnswBuildParams.defaults(0)).isEqualTo(new HnswBuildParams(20, 150, 7, 0));
  }

  private static int[][] levels(
      HnswGraph g, java.util.function.BiFunction<HnswGraph, Integer, int[]> f) {
    int[][] out = new int[g.numLevels()][];
    for (int l = 0; l < out.length; l++) {
      out[l] = f.apply(g, l);
    }
    return out;
  }

  private static float[][] floats(HnswGraph g) {
    float[][] out = new float[g.numLevels()][];
    for (int l = 0; l < out.length; l++) {
      out[l] = g.levelDistances(l);
    }
    return out;
  }
}
