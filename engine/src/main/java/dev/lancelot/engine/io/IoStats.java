package dev.lancelot.engine.io;

import java.util.concurrent.atomic.LongAdder;

/** Thread-safe read counters. */
public final class IoStats {
  private final LongAdder bytesRead = new LongAdder();
  private final LongAdder readRequests = new LongAdder();

  public void recordRead(long bytes) {
    bytesRead.add(bytes);
    readRequests.increment();
  }

  public long bytesRead() {
    return bytesRead.sum();
  }

  public long readRequests() {
    return readRequests.sum();
  }

  public void reset() {
    bytesRead.reset();
    readRequests.reset();
  }

  @Override
  public String toString() {
    return "IoStats{bytesRead=" + bytesRead() + ", readRequests=" + readRequests() + "}";
  }
}
