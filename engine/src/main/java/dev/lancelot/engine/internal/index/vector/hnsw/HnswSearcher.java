package dev.lancelot.engine.internal.index.vector.hnsw;

import dev.lancelot.engine.internal.index.vector.AcceptMask;
import dev.lancelot.engine.internal.index.vector.QueryScorer;
import dev.lancelot.engine.internal.index.vector.SearchResult;
import dev.lancelot.engine.internal.index.vector.SearchStats;
import dev.lancelot.engine.internal.index.vector.TopKCollector;
import dev.lancelot.engine.vector.VectorException;

/**
 * Searches {@link HnswGraph}s as Lance's {@code HNSW::search}: greedy descent from node 0 through
 * the upper levels, then a beam search of width {@code ef} on level 0 that traverses every node but
 * only keeps accepted ones, returning the best {@code k}. When the accept mask admits fewer than
 * 10% of the nodes the graph is skipped for an exact scan of the accepted nodes (Lance does the
 * same: a graph walk would wander through rejected nodes).
 *
 * <p>Holds reusable scratch (visited set, heaps, neighbour buffers): one searcher per thread,
 * reused across queries and graphs. Counters of the last search are in {@link #stats()}.
 */
public final class HnswSearcher {
  private final GraphSearch search = new GraphSearch();
  private final SearchStats stats = new SearchStats();
  private int[] nodes = new int[16];
  private float[] dists = new float[16];

  /** Counters of the last search (reset at the start of each). */
  public SearchStats stats() {
    return stats;
  }

  /**
   * The best {@code k} accepted nodes for the query behind {@code scorer}, nearest first (ids are
   * node ids). {@code ef} must be at least {@code k}; {@code accept} may be null.
   */
  public SearchResult search(
      HnswGraph graph, QueryScorer scorer, int k, int ef, AcceptMask accept) {
    TopKCollector collector = new TopKCollector(k);
    search(graph, scorer, k, ef, accept, null, collector);
    return collector.result();
  }

  /**
   * As {@link #search(HnswGraph, QueryScorer, int, int, AcceptMask)}, offering the hits to {@code
   * collector} with id {@code rowIds[node]} (or the node id when {@code rowIds} is null), so
   * several partitions can feed one collector. Returns the number of hits offered.
   */
  public int search(
      HnswGraph graph,
      QueryScorer scorer,
      int k,
      int ef,
      AcceptMask accept,
      long[] rowIds,
      TopKCollector collector) {
    if (k < 1) {
      throw new VectorException(
          "Cannot search HNSW with k=" + k + ": k must be at least 1. Ask for 1 or more results.");
    }
    if (ef < k) {
      throw new VectorException(
          "Cannot search HNSW with ef="
              + ef
              + ": ef must be greater than or equal to k ("
              + k
              + "), the number of candidates asked for (k × refine_factor). Raise ef to at least "
              + k
              + " or leave it unset (default k + k/2).");
    }
    stats.reset();
    int n = graph.numNodes();
    if (n == 0) {
      return 0;
    }
    if (accept != null && accept.size() != n) {
      throw new IllegalArgumentException(
          "accept mask covers " + accept.size() + " nodes, graph has " + n);
    }
    if (accept != null && !accept.atLeast(n * 10L / 100)) {
      return flatOverAccepted(scorer, n, k, accept, rowIds, collector);
    }
    search.resetCounters();
    int ep = graph.entryPoint();
    float epDist = scorer.score(ep);
    search.distancesComputed++;
    for (int level = graph.numLevels() - 1; level > 0; level--) {
      ep = search.greedy(graph, level, ep, epDist, scorer);
      epDist = search.greedyDistance;
    }
    search.beam(graph, 0, ep, epDist, ef, scorer, accept);
    if (nodes.length < ef) {
      nodes = new int[ef];
      dists = new float[ef];
    }
    int found = search.results.drainAscending(nodes, dists);
    int offered = Math.min(found, k);
    for (int i = 0; i < offered; i++) {
      collector.collect(rowIds == null ? nodes[i] : rowIds[nodes[i]], dists[i]);
    }
    stats.addVisited(search.nodesVisited);
    stats.addDistances(search.distancesComputed);
    return offered;
  }

  private int flatOverAccepted(
      QueryScorer scorer, int n, int k, AcceptMask accept, long[] rowIds, TopKCollector collector) {
    TopKCollector local = new TopKCollector(k);
    int accepted = accept.cardinality();
    int[] ids = new int[accepted];
    int j = 0;
    for (int node = 0; node < n; node++) {
      if (accept.get(node)) {
        ids[j++] = node;
      }
    }
    float[] out = new float[accepted];
    scorer.score(ids, accepted, out);
    for (int i = 0; i < accepted; i++) {
      local.collect(ids[i], out[i]);
    }
    stats.addVisited(accepted);
    stats.addDistances(accepted);
    SearchResult r = local.result();
    for (int i = 0; i < r.size(); i++) {
      int node = (int) r.ids()[i];
      collector.collect(rowIds == null ? node : rowIds[node], r.distances()[i]);
    }
    return r.size();
  }
}
