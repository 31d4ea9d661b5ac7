package dev.lancelot.engine.internal.index.vector.hnsw;

import dev.lancelot.engine.internal.index.vector.AcceptMask;
import dev.lancelot.engine.internal.index.vector.QueryScorer;

/**
 * Greedy descent and beam search over one level, as Lance's {@code greedy_search} and {@code
 * beam_search} ({@code lance-index/src/vector/graph.rs}), with scratch reused across calls.
 * Neighbour lists are scored in bulk: one scorer call per expanded node. Not thread-safe.
 */
final class GraphSearch {
  final Visited visited = new Visited();
  final NodeHeap candidates = new NodeHeap(64, false);
  final NodeHeap results = new NodeHeap(64, true);
  private int[] nbrs = new int[64];
  private int[] fresh = new int[64];
  private float[] freshDist = new float[64];
  long nodesVisited;
  long distancesComputed;

  /** Distance of the node {@link #greedy} returned. */
  float greedyDistance;

  void resetCounters() {
    nodesVisited = 0;
    distancesComputed = 0;
  }

  private void ensure(int degree) {
    if (nbrs.length < degree) {
      nbrs = new int[degree];
      fresh = new int[degree];
      freshDist = new float[degree];
    }
  }

  /** Moves to the closest neighbour while it improves (strictly); returns the final node. */
  int greedy(Adjacency g, int level, int ep, float epDist, QueryScorer scorer) {
    ensure(g.maxDegree());
    int current = ep;
    float best = epDist;
    while (true) {
      int count = g.neighbors(level, current, nbrs);
      nodesVisited++;
      scorer.score(nbrs, count, freshDist);
      distancesComputed += count;
      int next = -1;
      for (int i = 0; i < count; i++) {
        if (freshDist[i] < best) {
          best = freshDist[i];
          next = nbrs[i];
        }
      }
      if (next < 0) {
        greedyDistance = best;
        return current;
      }
      current = next;
    }
  }

  /**
   * Beam search with list size {@code ef} from {@code ep}; afterwards {@link #results} holds up to
   * {@code ef} accepted nodes (max-first). Rejected nodes are still expanded.
   */
  void beam(
      Adjacency g, int level, int ep, float epDist, int ef, QueryScorer scorer, AcceptMask accept) {
    ensure(g.maxDegree());
    visited.reset(g.numNodes());
    candidates.clear();
    results.clear();
    visited.add(ep);
    candidates.push(ep, epDist);
    if (accept == null || accept.get(ep)) {
      results.push(ep, epDist);
    }
    while (candidates.size() > 0) {
      int current = candidates.topNode();
      float currentDist = candidates.topDistance();
      candidates.pop();
      float furthest = results.size() > 0 ? results.topDistance() : Float.POSITIVE_INFINITY;
      if (currentDist > furthest && results.size() == ef) {
        break;
      }
      int count = g.neighbors(level, current, nbrs);
      int n = 0;
      for (int i = 0; i < count; i++) {
        if (visited.add(nbrs[i])) {
          fresh[n++] = nbrs[i];
        }
      }
      if (n == 0) {
        continue;
      }
      scorer.score(fresh, n, freshDist);
      distancesComputed += n;
      for (int i = 0; i < n; i++) {
        float d = freshDist[i];
        if (d <= furthest || results.size() < ef) {
          int node = fresh[i];
          if (accept == null || accept.get(node)) {
            if (results.size() < ef) {
              results.push(node, d);
            } else if (Float.compare(d, results.topDistance()) < 0) {
              results.replaceTop(node, d);
            }
          }
          candidates.push(node, d);
        }
      }
    }
    nodesVisited += visited.count();
  }
}
