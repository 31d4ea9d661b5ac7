package dev.lancelot.spark.read;

import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.spark.LanceOptions;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;

/**
 * The options of a streaming read (docs/user-guide.md, "Streaming"; semantics S11).
 *
 * @param startingVersion the first version whose changes the stream delivers; empty: the latest
 *     version's whole content first, then the changes after it
 * @param latest {@code startingVersion = latest}: only the changes after the version that is the
 *     latest when the query starts
 * @param maxRowsPerTrigger rows per micro-batch at most (0: no limit)
 * @param maxFilesPerTrigger fragments per micro-batch at most (0: no limit)
 * @param skipChangeCommits versions that delete or rewrite rows are skipped instead of failing the
 *     stream
 * @param timeTravel the read names a version ({@code version}, {@code versionAsOf}, {@code tag} or
 *     {@code timestampAsOf}), which a stream refuses
 */
public record LanceStreamOptions(
    OptionalLong startingVersion,
    boolean latest,
    long maxRowsPerTrigger,
    int maxFilesPerTrigger,
    boolean skipChangeCommits,
    boolean timeTravel) {

  /** Reads the streaming options from a read's options (the others are ignored here). */
  public static LanceStreamOptions parse(Map<String, String> options) {
    Map<String, String> lower = new java.util.HashMap<>();
    options.forEach((k, v) -> lower.put(k.toLowerCase(Locale.ROOT), v));
    String start = lower.get(LanceOptions.STARTING_VERSION.toLowerCase(Locale.ROOT));
    OptionalLong startingVersion = OptionalLong.empty();
    boolean latest = false;
    if (start != null) {
      if (start.trim().equalsIgnoreCase("latest")) {
        latest = true;
      } else {
        startingVersion = OptionalLong.of(positive(LanceOptions.STARTING_VERSION, start));
      }
    }
    String rows = lower.get(LanceOptions.MAX_ROWS_PER_TRIGGER.toLowerCase(Locale.ROOT));
    String files = lower.get(LanceOptions.MAX_FILES_PER_TRIGGER.toLowerCase(Locale.ROOT));
    return new LanceStreamOptions(
        startingVersion,
        latest,
        rows == null ? 0 : positive(LanceOptions.MAX_ROWS_PER_TRIGGER, rows),
        files == null ? 0 : (int) positive(LanceOptions.MAX_FILES_PER_TRIGGER, files),
        LanceOptions.bool(
            LanceOptions.SKIP_CHANGE_COMMITS,
            lower.get(LanceOptions.SKIP_CHANGE_COMMITS.toLowerCase(Locale.ROOT))),
        java.util.stream.Stream.of(
                LanceOptions.VERSION,
                LanceOptions.VERSION_AS_OF,
                LanceOptions.TAG,
                LanceOptions.TIMESTAMP_AS_OF)
            .anyMatch(k -> lower.containsKey(k.toLowerCase(Locale.ROOT))));
  }

  /** The rate limit the options set: rows, fragments, both, or everything available. */
  ReadLimit readLimit() {
    if (maxRowsPerTrigger > 0 && maxFilesPerTrigger > 0) {
      return ReadLimit.compositeLimit(
          new ReadLimit[] {
            ReadLimit.maxRows(maxRowsPerTrigger), ReadLimit.maxFiles(maxFilesPerTrigger)
          });
    }
    if (maxRowsPerTrigger > 0) {
      return ReadLimit.maxRows(maxRowsPerTrigger);
    }
    if (maxFilesPerTrigger > 0) {
      return ReadLimit.maxFiles(maxFilesPerTrigger);
    }
    return ReadLimit.allAvailable();
  }

  private static long positive(String name, String value) {
    try {
      long n = Long.parseLong(value.trim());
      if (n >= 1 && (!name.equals(LanceOptions.MAX_FILES_PER_TRIGGER) || n <= Integer.MAX_VALUE)) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new InvalidInputException(
        "Cannot use option "
            + name
            + "=\""
            + value
            + "\": expected a whole number of at least 1"
            + (name.equals(LanceOptions.STARTING_VERSION) ? " (a version) or \"latest\"." : "."));
  }
}
