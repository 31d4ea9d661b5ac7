package dev.lancelot.engine;

/**
 * The settings of a {@link Session}: the byte budget of everything it caches (opened versions, data
 * files' metadata, vector and scalar index segments, together). Immutable; {@code with…} returns a
 * new value.
 */
public final class SessionOptions {
  /**
   * System property with the budget of the shared session ({@link Session#shared()}), read when the
   * engine first uses that session. Also the budget {@link
   * dev.lancelot.engine.index.vector.VectorIndexCache} sets.
   */
  public static final String MAX_BYTES_PROPERTY = "lancelot.cache.maxBytes";

  /** Default budget when the property is not set: 1 GiB, or a quarter of the heap if smaller. */
  public static final long DEFAULT_MAX_BYTES = 1L << 30;

  private final long maxBytes;

  private SessionOptions(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  /**
   * The budget in {@value #MAX_BYTES_PROPERTY} when set, else {@value #DEFAULT_MAX_BYTES} bytes or
   * a quarter of the maximum heap, whichever is smaller.
   *
   * @throws InvalidInputException if the property is not a number of bytes, 0 or more
   */
  public static SessionOptions defaults() {
    String p = System.getProperty(MAX_BYTES_PROPERTY);
    if (p == null) {
      return new SessionOptions(Math.min(DEFAULT_MAX_BYTES, Runtime.getRuntime().maxMemory() / 4));
    }
    long bytes;
    try {
      bytes = Long.parseLong(p.trim());
    } catch (NumberFormatException e) {
      throw new InvalidInputException(
          "Cannot read system property "
              + MAX_BYTES_PROPERTY
              + "=\""
              + p
              + "\": it is not a whole number of bytes. Set it to the cache budget in bytes, or"
              + " remove it for the default.",
          e);
    }
    if (bytes < 0) {
      throw new InvalidInputException(
          "Cannot use system property "
              + MAX_BYTES_PROPERTY
              + "="
              + bytes
              + ": a cache budget must not be negative. Set it to 0 or more bytes.");
    }
    return new SessionOptions(bytes);
  }

  /**
   * The same settings with a budget of {@code bytes}; 0 keeps nothing between uses.
   *
   * @throws InvalidInputException if {@code bytes} is negative
   */
  public SessionOptions withMaxBytes(long bytes) {
    if (bytes < 0) {
      throw new InvalidInputException(
          "Cannot set a session's cache to "
              + bytes
              + " bytes: the size must not be negative. Pass 0 or more bytes.");
    }
    return new SessionOptions(bytes);
  }

  /** Estimated heap bytes the session may keep cached, all kinds together. */
  public long maxBytes() {
    return maxBytes;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SessionOptions other && other.maxBytes == maxBytes;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(maxBytes);
  }

  @Override
  public String toString() {
    return "SessionOptions[maxBytes=" + maxBytes + "]";
  }
}
