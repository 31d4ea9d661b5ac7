package dev.lancelot.engine.internal.index.vector.hnsw;

import dev.lancelot.engine.internal.index.vector.QueryScorer;
import dev.lancelot.engine.internal.index.vector.VectorStorage;
import java.util.SplittableRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds an {@link HnswGraph} over any {@link VectorStorage}, following Lance's {@code HnswBuilder}
 * ({@code lance-index/src/vector/hnsw/builder.rs}):
 *
 * <ul>
 *   <li>Node 0 is the entry point and lives on all {@code max_level} levels; every other node gets
 *       {@code min(floor(-ln(U) / ln(m)), max_level - 1) + 1} levels, U uniform in [0, 1).
 *   <li>Nodes 1..n-1 are inserted in order: greedy descent from node 0 through the levels above the
 *       node's top level, then on each of its levels a beam search with {@code ef_construction}
 *       whose results become the node's neighbours, pruned to {@code m_max} (2m on level 0, m
 *       above) with the heuristic below; the next level starts from the nearest result.
 *   <li>Reverse edges: each chosen neighbour gets the new node if it is closer than that
 *       neighbour's current furthest (or the neighbour has room), then is pruned the same way.
 *   <li>Heuristic ({@code select_neighbors_heuristic}, HNSW paper algorithm 4 without refilling):
 *       take candidates nearest first, keep one if it is closer to the base node than to every
 *       neighbour kept so far, stop at {@code m_max}; lists of at most {@code m_max} are kept as
 *       is.
 * </ul>
 *
 * <p>Unlike Lance (parallel, unseeded) the build is sequential and seeded, hence reproducible.
 */
public final class HnswBuilder implements Adjacency {
  private static final Logger LOG = LoggerFactory.getLogger(HnswBuilder.class);

  private final VectorStorage storage;
  private final HnswBuildParams params;
  private final int n;
  private final int numLevels;
  private final int[] levels;

  /** [level][node] → neighbour ids / distances, nearest first; null where the node is absent. */
  private final int[][][] ids;

  private final float[][][] dists;
  private final int[][] counts;
  private final GraphSearch search = new GraphSearch();
  private final int[] resultNodes;
  private final float[] resultDists;

  /**
   * The heuristic tests a candidate against this many kept neighbours per storage call: enough for
   * the reads to overlap, few enough that a candidate rejected by a near neighbour wastes little.
   */
  private static final int SELECTION_CHUNK = 4;

  private final float[] chunkDists = new float[SELECTION_CHUNK];

  private HnswBuilder(VectorStorage storage, HnswBuildParams params) {
    this.storage = storage;
    this.params = params;
    this.n = storage.size();
    this.numLevels = params.maxLevel();
    this.levels = new int[n];
    this.ids = new int[numLevels][n][];
    this.dists = new float[numLevels][n][];
    this.counts = new int[numLevels][n];
    this.resultNodes = new int[Math.max(params.efConstruction(), 1)];
    this.resultDists = new float[resultNodes.length];
    SplittableRandom random = new SplittableRandom(params.seed());
    float ml = 1f / (float) Math.log(params.m());
    for (int node = 0; node < n; node++) {
      int top;
      if (node == 0) {
        top = numLevels - 1;
      } else {
        float u = (float) random.nextDouble();
        float level = (float) -Math.log(u) * ml;
        top = level >= numLevels - 1 ? numLevels - 1 : (int) level;
      }
      levels[node] = top + 1;
      for (int l = 0; l <= top; l++) {
        int cap = params.maxNeighbors(l) + 1;
        ids[l][node] = new int[cap];
        dists[l][node] = new float[cap];
      }
    }
  }

  /** Builds the graph of all vectors in {@code storage}. */
  public static HnswGraph build(VectorStorage storage, HnswBuildParams params) {
    long start = System.nanoTime();
    HnswBuilder b = new HnswBuilder(storage, params);
    for (int node = 1; node < b.n; node++) {
      b.insert(node);
    }
    HnswGraph graph = b.freeze();
    LOG.debug(
        "Built HNSW graph: nodes={}, levels={}, m={}, ef_construction={}, metric={}, distances={}, {} ms",
        b.n,
        b.numLevels,
        params.m(),
        params.efConstruction(),
        storage.metric().lanceName(),
        b.search.distancesComputed,
        (System.nanoTime() - start) / 1_000_000);
    return graph;
  }

  private void insert(int node) {
    QueryScorer scorer = storage.nodeScorer(node);
    int target = levels[node] - 1;
    int ep = 0;
    float epDist = scorer.score(0);
    search.distancesComputed++;
    for (int level = numLevels - 1; level > target; level--) {
      ep = search.greedy(this, level, ep, epDist, scorer);
      epDist = search.greedyDistance;
    }
    for (int level = target; level >= 0; level--) {
      search.beam(this, level, ep, epDist, params.efConstruction(), scorer, null);
      int found = search.results.drainAscending(resultNodes, resultDists);
      int mMax = params.maxNeighbors(level);
      int kept =
          found <= mMax
              ? copyAll(found, node, level)
              : selectHeuristic(
                  resultNodes, resultDists, found, mMax, ids[level][node], dists[level][node]);
      counts[level][node] = kept;
      if (found > 0) {
        ep = resultNodes[0];
        epDist = resultDists[0];
      }
    }
    for (int level = target; level >= 0; level--) {
      int mMax = params.maxNeighbors(level);
      for (int i = 0; i < counts[level][node]; i++) {
        int nb = ids[level][node][i];
        float d = dists[level][node][i];
        int c = counts[level][nb];
        if (c < mMax || d < dists[level][nb][c - 1]) {
          addNeighbor(level, nb, node, d);
          if (counts[level][nb] > mMax) {
            prune(level, nb, mMax);
          }
        }
      }
    }
  }

  private int copyAll(int found, int node, int level) {
    System.arraycopy(resultNodes, 0, ids[level][node], 0, found);
    System.arraycopy(resultDists, 0, dists[level][node], 0, found);
    return found;
  }

  /** Inserts (other, d) into node's sorted list on level; the list has room for one extra. */
  private void addNeighbor(int level, int node, int other, float d) {
    int[] list = ids[level][node];
    float[] ds = dists[level][node];
    int c = counts[level][node];
    int pos = c;
    while (pos > 0
        && (Float.compare(ds[pos - 1], d) > 0 || (ds[pos - 1] == d && list[pos - 1] > other))) {
      list[pos] = list[pos - 1];
      ds[pos] = ds[pos - 1];
      pos--;
    }
    list[pos] = other;
    ds[pos] = d;
    counts[level][node] = c + 1;
  }

  private void prune(int level, int node, int mMax) {
    int c = counts[level][node];
    int[] candIds = ids[level][node].clone();
    float[] candDists = dists[level][node].clone();
    counts[level][node] =
        selectHeuristic(candIds, candDists, c, mMax, ids[level][node], dists[level][node]);
  }

  /**
   * Lance's {@code select_neighbors_heuristic} over candidates sorted nearest first; writes the
   * kept ones (still nearest first) to {@code outIds/outDists} and returns how many.
   */
  private int selectHeuristic(
      int[] candIds, float[] candDists, int count, int k, int[] outIds, float[] outDists) {
    int kept = 0;
    for (int i = 0; i < count && kept < k; i++) {
      int u = candIds[i];
      float du = candDists[i];
      boolean diverse = true;
      for (int j = 0; j < kept && diverse; ) {
        // the nearest kept neighbour rejects most candidates, so it is tested alone
        int c = j == 0 ? 1 : Math.min(SELECTION_CHUNK, kept - j);
        storage.distancesBetween(u, outIds, j, c, chunkDists);
        for (int t = 0; t < c; t++) {
          if (!(du < chunkDists[t])) {
            diverse = false;
            break;
          }
        }
        j += c;
      }
      if (diverse) {
        outIds[kept] = u;
        outDists[kept] = du;
        kept++;
      }
    }
    return kept;
  }

  private HnswGraph freeze() {
    int[][] levelNodes = new int[numLevels][];
    int[][] offsets = new int[numLevels][];
    int[][] nbrs = new int[numLevels][];
    float[][] ds = new float[numLevels][];
    for (int l = 0; l < numLevels; l++) {
      int present = 0;
      int edges = 0;
      for (int node = 0; node < n; node++) {
        if (levels[node] > l) {
          present++;
          edges += counts[l][node];
        }
      }
      levelNodes[l] = new int[present];
      offsets[l] = new int[present + 1];
      nbrs[l] = new int[edges];
      ds[l] = new float[edges];
      int row = 0;
      int e = 0;
      for (int node = 0; node < n; node++) {
        if (levels[node] > l) {
          levelNodes[l][row] = node;
          int c = counts[l][node];
          System.arraycopy(ids[l][node], 0, nbrs[l], e, c);
          System.arraycopy(dists[l][node], 0, ds[l], e, c);
          e += c;
          offsets[l][++row] = e;
        }
      }
    }
    return new HnswGraph(n, 0, params, levelNodes, offsets, nbrs, ds);
  }

  @Override
  public int numNodes() {
    return n;
  }

  @Override
  public int numLevels() {
    return numLevels;
  }

  @Override
  public int entryPoint() {
    return 0;
  }

  @Override
  public int neighbors(int level, int node, int[] out) {
    int c = counts[level][node];
    if (c > 0) {
      System.arraycopy(ids[level][node], 0, out, 0, c);
    }
    return c;
  }

  @Override
  public int maxDegree() {
    return 2 * params.m() + 1;
  }
}
