package dev.lancelot.engine.io;

/**
 * Per-thread counters of what the work on the current thread read: bytes, files opened, index cache
 * hits and misses (a hit is a segment or an IVF partition served from memory, a miss one read from
 * storage), and rows a scan decoded (rows read from data files, whether or not its filter kept
 * them). A task takes a {@link #now()} reading before its work and {@link Reading#since} after, so
 * concurrent tasks on other threads do not mix in. Work handed to other threads is counted on those
 * threads.
 */
public final class ReadCounters {
  private static final ThreadLocal<long[]> COUNTS = ThreadLocal.withInitial(() -> new long[5]);

  private ReadCounters() {}

  /** Counter values at one moment, or a difference of two moments. */
  public record Reading(
      long bytesRead,
      long filesOpened,
      long indexCacheHits,
      long indexCacheMisses,
      long rowsScanned) {
    /** What happened on this thread since {@code this} was taken. */
    public Reading since() {
      Reading now = now();
      return new Reading(
          now.bytesRead - bytesRead,
          now.filesOpened - filesOpened,
          now.indexCacheHits - indexCacheHits,
          now.indexCacheMisses - indexCacheMisses,
          now.rowsScanned - rowsScanned);
    }
  }

  public static Reading now() {
    long[] c = COUNTS.get();
    return new Reading(c[0], c[1], c[2], c[3], c[4]);
  }

  static void bytesRead(long n) {
    COUNTS.get()[0] += n;
  }

  static void fileOpened() {
    COUNTS.get()[1]++;
  }

  public static void indexCacheHit() {
    COUNTS.get()[2]++;
  }

  public static void indexCacheMiss() {
    COUNTS.get()[3]++;
  }

  /** Counts {@code n} rows a scan decoded. */
  public static void rowsScanned(long n) {
    COUNTS.get()[4] += n;
  }
}
