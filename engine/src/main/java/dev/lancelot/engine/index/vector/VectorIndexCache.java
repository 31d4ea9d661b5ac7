package dev.lancelot.engine.index.vector;

import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.internal.index.vector.VectorSegmentSearcher;

/**
 * The process-wide cache of opened vector index segments: each segment's model (centroids,
 * codebook) and the partitions queries have loaded, shared by every search in the JVM and keyed by
 * dataset location and segment id (segment files never change). Least recently used segments leave
 * first once the cache holds more than {@link #maxBytes()}.
 */
public final class VectorIndexCache {
  /** System property with the cache's byte budget, read when the engine is first used. */
  public static final String MAX_BYTES_PROPERTY = VectorSegmentSearcher.CACHE_MAX_BYTES_PROPERTY;

  private VectorIndexCache() {}

  /** The byte budget: {@value #MAX_BYTES_PROPERTY}, else 1 GiB or a quarter of the heap. */
  public static long maxBytes() {
    return VectorSegmentSearcher.cacheMaxBytes();
  }

  /**
   * Sets the byte budget (e.g. from a Spark conf on each executor); 0 keeps nothing between
   * searches.
   *
   * @throws InvalidInputException if {@code bytes} is negative
   */
  public static void setMaxBytes(long bytes) {
    if (bytes < 0) {
      throw new InvalidInputException(
          "Cannot set the vector index cache to "
              + bytes
              + " bytes: the size must not be negative");
    }
    VectorSegmentSearcher.setCacheMaxBytes(bytes);
  }
}
