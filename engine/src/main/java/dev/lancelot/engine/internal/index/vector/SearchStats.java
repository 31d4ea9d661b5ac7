package dev.lancelot.engine.internal.index.vector;

/**
 * Work counters of one search, filled by searchers for "analyze" output (SPEC Q12) and for tests
 * that bound the work: IVF partitions probed, nodes visited (graph nodes expanded or marked
 * visited, rows scanned) and distances computed. Not thread-safe; one per search or per searcher,
 * reset between searches.
 */
public final class SearchStats {
  private long partitionsProbed;
  private long nodesVisited;
  private long distancesComputed;

  public long partitionsProbed() {
    return partitionsProbed;
  }

  public void addPartitionsProbed(long n) {
    partitionsProbed += n;
  }

  public long nodesVisited() {
    return nodesVisited;
  }

  public long distancesComputed() {
    return distancesComputed;
  }

  public void addVisited(long n) {
    nodesVisited += n;
  }

  public void addDistances(long n) {
    distancesComputed += n;
  }

  public void add(SearchStats other) {
    partitionsProbed += other.partitionsProbed;
    nodesVisited += other.nodesVisited;
    distancesComputed += other.distancesComputed;
  }

  public void reset() {
    partitionsProbed = 0;
    nodesVisited = 0;
    distancesComputed = 0;
  }

  @Override
  public String toString() {
    return "partitions_probed="
        + partitionsProbed
        + ", nodes_visited="
        + nodesVisited
        + ", distances_computed="
        + distancesComputed;
  }
}
