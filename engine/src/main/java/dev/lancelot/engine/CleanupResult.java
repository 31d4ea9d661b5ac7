package dev.lancelot.engine;

import java.util.List;

/**
 * What {@link Dataset#cleanup} removed.
 *
 * @param versionsRemoved the versions whose manifests were deleted, oldest first
 * @param dataFilesRemoved files under {@code data/}
 * @param deletionFilesRemoved files under {@code _deletions/}
 * @param transactionFilesRemoved files under {@code _transactions/}
 * @param indexSegmentsRemoved directories under {@code _indices/}
 * @param unreferencedFilesRemoved of all files removed, those no manifest ever referenced
 *     (leftovers of failed writes, including temporary manifest files)
 * @param bytesRemoved bytes of every file removed, manifests included
 */
public record CleanupResult(
    List<Long> versionsRemoved,
    long dataFilesRemoved,
    long deletionFilesRemoved,
    long transactionFilesRemoved,
    long indexSegmentsRemoved,
    long unreferencedFilesRemoved,
    long bytesRemoved) {
  public CleanupResult {
    versionsRemoved = List.copyOf(versionsRemoved);
  }
}
