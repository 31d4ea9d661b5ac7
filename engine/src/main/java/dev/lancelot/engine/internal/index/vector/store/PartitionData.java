package dev.lancelot.engine.internal.index.vector.store;

import dev.lancelot.engine.internal.index.vector.VectorStorage;
import dev.lancelot.engine.internal.index.vector.hnsw.HnswGraph;

/**
 * One IVF partition of a segment, on the heap: the row addresses of its vectors ({@code
 * rowIds[node]}), their storage (flat, SQ or PQ, node ids {@code 0 .. size-1}) and, for IVF_HNSW_*,
 * the graph over those nodes ({@code null} otherwise); whether the row addresses ascend (then
 * admitted rows are found by lookup, {@code VectorSegmentSearcher}). Immutable and shareable
 * between threads.
 */
public record PartitionData(
    long[] rowIds, VectorStorage storage, HnswGraph graph, boolean rowIdsAscending) {
  /** {@code rowIdsAscending} is whether {@code rowIds} ascend as unsigned numbers. */
  public PartitionData(long[] rowIds, VectorStorage storage, HnswGraph graph) {
    this(rowIds, storage, graph, ascending(rowIds));
  }

  private static boolean ascending(long[] rowIds) {
    for (int i = 1; i < rowIds.length; i++) {
      if (Long.compareUnsigned(rowIds[i - 1], rowIds[i]) >= 0) {
        return false;
      }
    }
    return true;
  }

  public int size() {
    return rowIds.length;
  }

  /** Approximate heap size, for cache accounting. */
  public long estimatedBytes() {
    long codes;
    if (storage instanceof dev.lancelot.engine.internal.index.vector.flat.FlatStorage) {
      codes = 4L * storage.size() * storage.dimension();
    } else if (storage instanceof dev.lancelot.engine.internal.index.vector.rq.RqStorage rq) {
      codes = rq.estimatedBytes();
    } else if (storage instanceof dev.lancelot.engine.internal.index.vector.sq.SqStorage) {
      codes = (long) storage.size() * storage.dimension();
    } else {
      codes =
          (long) storage.size()
              * ((dev.lancelot.engine.internal.index.vector.pq.PqStorage) storage)
                  .codebook()
                  .numSubVectors();
    }
    return 8L * rowIds.length
        + codes
        + (graph == null ? 0 : 8L * graph.numNodes() * graph.maxDegree());
  }
}
