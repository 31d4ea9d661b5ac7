package dev.lancelot.engine.internal.index.vector.flat;

import dev.lancelot.engine.internal.index.vector.AcceptMask;
import dev.lancelot.engine.internal.index.vector.QueryScorer;
import dev.lancelot.engine.internal.index.vector.SearchStats;
import dev.lancelot.engine.internal.index.vector.TopKCollector;
import dev.lancelot.engine.vector.DistanceMetric;

/**
 * Exhaustive scans: every accepted node is scored and offered to a {@link TopKCollector}. Used for
 * exact KNN over unindexed rows (SPEC Q9, Q11), for IVF_FLAT/PQ/SQ partition scans, and for HNSW
 * when a prefilter leaves few nodes. Scores in blocks of {@value #BLOCK} so the kernel loops stay
 * hot; one scratch block per call.
 */
public final class FlatSearch {
  static final int BLOCK = 512;

  private FlatSearch() {}

  /**
   * Scores only the nodes {@code accept} admits (for a selective mask: fewer distances than {@link
   * #search(QueryScorer, int, AcceptMask, long[], TopKCollector, SearchStats)}), and collects them.
   * Node ids as there.
   */
  public static void searchAccepted(
      QueryScorer scorer,
      int size,
      AcceptMask accept,
      long[] rowIds,
      TopKCollector collector,
      SearchStats stats) {
    int[] nodes = new int[Math.min(BLOCK, Math.max(size, 1))];
    float[] block = new float[nodes.length];
    int n = 0;
    long scored = 0;
    for (int node = 0; node < size; node++) {
      if (!accept.get(node)) {
        continue;
      }
      nodes[n++] = node;
      if (n == nodes.length) {
        scored += offerNodes(scorer, nodes, n, block, rowIds, collector);
        n = 0;
      }
    }
    scored += offerNodes(scorer, nodes, n, block, rowIds, collector);
    if (stats != null) {
      stats.addVisited(scored);
      stats.addDistances(scored);
    }
  }

  private static int offerNodes(
      QueryScorer scorer,
      int[] nodes,
      int n,
      float[] block,
      long[] rowIds,
      TopKCollector collector) {
    if (n == 0) {
      return 0;
    }
    scorer.score(nodes, n, block);
    for (int i = 0; i < n; i++) {
      collector.collect(rowIds == null ? nodes[i] : rowIds[nodes[i]], block[i]);
    }
    return n;
  }

  /**
   * Scores nodes {@code 0 .. size-1} with {@code scorer} and collects accepted ones. The id
   * collected for node {@code i} is {@code rowIds[i]} when {@code rowIds} is given, else {@code i}.
   */
  public static void search(
      QueryScorer scorer,
      int size,
      AcceptMask accept,
      long[] rowIds,
      TopKCollector collector,
      SearchStats stats) {
    float[] block = new float[Math.min(BLOCK, Math.max(size, 1))];
    for (int from = 0; from < size; from += BLOCK) {
      int count = Math.min(BLOCK, size - from);
      scorer.scoreRange(from, count, block);
      offer(block, from, count, accept, rowIds, collector);
    }
    if (stats != null) {
      stats.addVisited(size);
      stats.addDistances(size);
    }
  }

  /**
   * Exact KNN over {@code count} float32 vectors stored back to back in {@code vectors}; ids as in
   * {@link #search(QueryScorer, int, AcceptMask, long[], TopKCollector, SearchStats)}.
   */
  public static void search(
      float[] query,
      float[] vectors,
      int dim,
      DistanceMetric metric,
      AcceptMask accept,
      long[] rowIds,
      TopKCollector collector,
      SearchStats stats) {
    int count = checkBlock(vectors.length, dim, query.length);
    float[] block = new float[Math.min(BLOCK, Math.max(count, 1))];
    for (int from = 0; from < count; from += BLOCK) {
      int n = Math.min(BLOCK, count - from);
      metric.distances(query, 0, vectors, from * dim, n, dim, block, 0);
      offer(block, from, n, accept, rowIds, collector);
    }
    count(stats, count);
  }

  /** Exact KNN over float16 vectors (half-precision bits), as above. */
  public static void search(
      short[] query,
      short[] vectors,
      int dim,
      DistanceMetric metric,
      AcceptMask accept,
      long[] rowIds,
      TopKCollector collector,
      SearchStats stats) {
    int count = checkBlock(vectors.length, dim, query.length);
    float[] block = new float[Math.min(BLOCK, Math.max(count, 1))];
    for (int from = 0; from < count; from += BLOCK) {
      int n = Math.min(BLOCK, count - from);
      metric.distances(query, 0, vectors, from * dim, n, dim, block, 0);
      offer(block, from, n, accept, rowIds, collector);
    }
    count(stats, count);
  }

  /** Exact KNN over uint8 (binary) vectors with the hamming metric, as above. */
  public static void search(
      byte[] query,
      byte[] vectors,
      int dim,
      DistanceMetric metric,
      AcceptMask accept,
      long[] rowIds,
      TopKCollector collector,
      SearchStats stats) {
    int count = checkBlock(vectors.length, dim, query.length);
    float[] block = new float[Math.min(BLOCK, Math.max(count, 1))];
    for (int from = 0; from < count; from += BLOCK) {
      int n = Math.min(BLOCK, count - from);
      metric.distances(query, 0, vectors, from * dim, n, dim, block, 0);
      offer(block, from, n, accept, rowIds, collector);
    }
    count(stats, count);
  }

  private static int checkBlock(int length, int dim, int queryLength) {
    if (dim <= 0 || length % dim != 0) {
      throw new IllegalArgumentException(
          "vector block length " + length + " is not a multiple of dim " + dim);
    }
    if (queryLength != dim) {
      throw new IllegalArgumentException(
          "query has dimension " + queryLength + ", vectors have " + dim);
    }
    return length / dim;
  }

  private static void offer(
      float[] block,
      int from,
      int count,
      AcceptMask accept,
      long[] rowIds,
      TopKCollector collector) {
    if (accept == null) {
      for (int i = 0; i < count; i++) {
        int node = from + i;
        collector.collect(rowIds == null ? node : rowIds[node], block[i]);
      }
      return;
    }
    for (int i = 0; i < count; i++) {
      int node = from + i;
      // Ask the mask only about nodes that could enter the top k (a lazy mask then tests few rows).
      if ((!collector.isFull() || Float.compare(block[i], collector.worstDistance()) <= 0)
          && accept.get(node)) {
        collector.collect(rowIds == null ? node : rowIds[node], block[i]);
      }
    }
  }

  private static void count(SearchStats stats, int n) {
    if (stats != null) {
      stats.addVisited(n);
      stats.addDistances(n);
    }
  }
}
