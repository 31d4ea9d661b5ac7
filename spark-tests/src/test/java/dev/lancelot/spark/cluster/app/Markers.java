package dev.lancelot.spark.cluster.app;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;

/**
 * Marker files through which write tasks and the test coordinate (the directory is on the disk
 * every JVM of the cluster shares). Waits are bounded, so a lost marker fails a task instead of
 * hanging the lane.
 */
final class Markers {
  private Markers() {}

  static void touch(String dir, String name, String content) {
    try {
      Path d = Files.createDirectories(Paths.get(dir));
      Path tmp = Files.createTempFile(d, name, ".tmp");
      Files.writeString(tmp, content);
      Files.move(tmp, d.resolve(name), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static boolean exists(String dir, String name) {
    return Files.exists(Paths.get(dir, name));
  }

  /** Waits until the marker exists; returns false after {@code timeout}. */
  static boolean await(String dir, String name, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!exists(dir, name)) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Interrupted while waiting for marker " + name, e);
      }
    }
    return true;
  }
}
