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
 */
public record CleanupOptions(
    Optional<Instant> olderThan, OptionalInt retainVersions, boolean deleteUnverified) {
  /** How old a file no manifest references must be before cleanup removes it. */
  public static final Duration UNVERIFIED_WINDOW = Duration.ofDays(7);

  public CleanupOptions {
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
    return new CleanupOptions(Optional.of(instant), retainVersions, deleteUnverified);
  }

  public CleanupOptions withRetainVersions(int n) {
    return new CleanupOptions(olderThan, OptionalInt.of(n), deleteUnverified);
  }

  public CleanupOptions withDeleteUnverified(boolean on) {
    return new CleanupOptions(olderThan, retainVersions, on);
  }
}
