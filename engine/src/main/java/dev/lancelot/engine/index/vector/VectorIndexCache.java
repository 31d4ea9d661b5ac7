package dev.lancelot.engine.index.vector;

import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.Session;
import dev.lancelot.engine.SessionOptions;

/**
 * The budget of the process-wide cache of opened vector index segments: each segment's model
 * (centroids, codebook) and the partitions queries have loaded, shared by every search in the JVM
 * and keyed by dataset location and segment id (segment files never change). The segments live in
 * the {@link Session#shared() shared session}, whose one byte budget also holds opened versions,
 * data files' metadata and scalar index segments: this class reads and sets that budget. Least
 * recently used entries leave first once the session holds more than {@link #maxBytes()}.
 */
public final class VectorIndexCache {
  /** System property with the cache's byte budget, read when the engine is first used. */
  public static final String MAX_BYTES_PROPERTY = SessionOptions.MAX_BYTES_PROPERTY;

  private VectorIndexCache() {}

  /**
   * The byte budget of the shared session: {@value #MAX_BYTES_PROPERTY}, else 1 GiB or a quarter of
   * the heap.
   */
  public static long maxBytes() {
    return Session.shared().maxBytes();
  }

  /**
   * Sets the byte budget of the shared session (e.g. from a Spark conf on each executor); 0 keeps
   * nothing between searches.
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
    Session.shared().setMaxBytes(bytes);
  }
}
