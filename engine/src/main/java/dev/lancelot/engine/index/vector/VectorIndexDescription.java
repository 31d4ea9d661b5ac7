package dev.lancelot.engine.index.vector;

import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.vector.DistanceMetric;
import java.util.List;
import java.util.UUID;

/**
 * Statistics of one logical vector index of a dataset version (all its segments).
 *
 * @param indexedRows live rows (deletions applied) of the fragments the index covers
 * @param unindexedRows live rows of the fragments it does not cover (searched flat, SPEC Q9)
 */
public record VectorIndexDescription(
    String name,
    String column,
    IndexType type,
    DistanceMetric metric,
    int dimension,
    int numPartitions,
    List<Segment> segments,
    List<Long> indexedFragments,
    List<Long> unindexedFragments,
    long indexedRows,
    long unindexedRows) {

  /**
   * One segment: its uuid, the version it was built on, the fragments it covers, and the vectors
   * its files hold (rows deleted since the build included).
   */
  public record Segment(
      UUID uuid,
      long datasetVersion,
      List<Long> fragments,
      long storedVectors,
      int numPartitions) {}

  @Override
  public String toString() {
    return name
        + " on "
        + column
        + ": "
        + type
        + " ("
        + metric.lanceName()
        + ", dim "
        + dimension
        + ", "
        + numPartitions
        + " partitions), "
        + segments.size()
        + " segment(s), indexed fragments "
        + indexedFragments
        + " ("
        + indexedRows
        + " rows), unindexed fragments "
        + unindexedFragments
        + " ("
        + unindexedRows
        + " rows)";
  }
}
