package dev.lancelot.engine.internal.index.vector;

import java.util.Arrays;

/**
 * Search hits, best first: {@code ids[i]} (node id or row address, as the producer says) at {@code
 * distances[i]}. The arrays belong to the result; callers must not modify them.
 */
public record SearchResult(long[] ids, float[] distances) {
  public SearchResult {
    if (ids.length != distances.length) {
      throw new IllegalArgumentException("ids and distances differ in length");
    }
  }

  public int size() {
    return ids.length;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SearchResult r
        && Arrays.equals(ids, r.ids)
        && Arrays.equals(distances, r.distances);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(ids) + Arrays.hashCode(distances);
  }

  @Override
  public String toString() {
    return "SearchResult{ids="
        + Arrays.toString(ids)
        + ", distances="
        + Arrays.toString(distances)
        + "}";
  }
}
