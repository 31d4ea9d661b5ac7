package dev.lancelot.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Which versions {@link Dataset#cleanup} removes, as Lance's {@code cleanup_old_versions}: a
 * version is removed when it is older than {@code olderThan} (its manifest's timestamp) and/or not
 * among the {@code retainVersions} newest versions; a version either criterion keeps is kept. The
 * latest version and every tagged version ({@code _refs/tags/}) are always kept.
 *
 * <p>Files no manifest references at all (leftovers of failed or in-progress writes) are only
 * removed once they are older than {@link #UNVERIFIED_WINDOW} (7 days, Lance's {@code
 * UNVERIFIED_THRESHOLD_DAYS}), unless {@code deleteUnverified}, which is only safe when no write is
 * running on the dataset.
 *
 * @param olderThan remove versions committed before this instant
 * @param retainVersions keep at least this many newest versions (at least 1)
 * @param deleteUnverified remove unreferenced files however recent (Lance's {@code
 *     delete_unverified})
 * @param parallelism how many manifests are read and files deleted at once (default {@value
 *     #DEFAULT_PARALLELISM}): on object stores each request waits on the network, so a cleanup of
 *     many versions or files is bound by how many run together
 */
public record CleanupOptions(
    Optional<Instant> olderThan,
    OptionalInt retainVersions,
    boolean deleteUnverified,
    int parallelism) {
  /** How old a file no manifest references must be before cleanup removes it. */
  public static final Duration UNVERIFIED_WINDOW = Duration.ofDays(7);

  /** Manifest reads and file deletions in flight at once unless {@link #withParallelism} says. */
  public static final int DEFAULT_PARALLELISM = 16;

  /** The options with the default parallelism. */
  public CleanupOptions(
      Optional<Instant> olderThan, OptionalInt retainVersions, boolean deleteUnverified) {
    this(olderThan, retainVersions, deleteUnverified, DEFAULT_PARALLELISM);
  }

  public CleanupOptions {
    if (parallelism < 1 || parallelism > 256) {
      throw new InvalidInputException(
          "Cannot clean up: parallelism must be between 1 and 256, got " + parallelism);
    }
    if (olderThan.isEmpty() && retainVersions.isEmpty()) {
      throw new InvalidInputException(
          "Cannot clean up: give older_than (a timestamp) and/or retain_versions "
              + "(a number of versions); without either nothing would be selected.");
    }
    if (retainVersions.isPresent() && retainVersions.getAsInt() < 1) {
      throw new InvalidInputException(
          "Cannot clean up: retain_versions must be at least 1 (the latest version "
              + "is always kept), got "
              + retainVersions.getAsInt());
    }
  }

  public static CleanupOptions olderThan(Instant instant) {
    return new CleanupOptions(Optional.of(instant), OptionalInt.empty(), false);
  }

  public static CleanupOptions retainVersions(int n) {
    return new CleanupOptions(Optional.empty(), OptionalInt.of(n), false);
  }

  public CleanupOptions withOlderThan(Instant instant) {
    return new CleanupOptions(Optional.of(instant), retainVersions, deleteUnverified, parallelism);
  }

  public CleanupOptions withRetainVersions(int n) {
    return new CleanupOptions(olderThan, OptionalInt.of(n), deleteUnverified, parallelism);
  }

  public CleanupOptions withDeleteUnverified(boolean on) {
    return new CleanupOptions(olderThan, retainVersions, on, parallelism);
  }

  /** Reads manifests and deletes files {@code n} at a time (1: one after another). */
  public CleanupOptions withParallelism(int n) {
    return new CleanupOptions(olderThan, retainVersions, deleteUnverified, n);
  }
}
