package dev.lancelot.cli;

import dev.lancelot.engine.CleanupOptions;
import dev.lancelot.engine.CleanupResult;
import dev.lancelot.engine.Dataset;
import java.io.PrintStream;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * {@code cleanup <dataset> (--older-than INSTANT | --retain-versions N) [--branch B]
 * [--delete-unverified] [--json]}: {@link Dataset#cleanup} of main or of branch {@code B} — old
 * versions and the files only they referenced removed; the latest and tagged versions, and those
 * branches start from, kept (with every file a branch reads); unreferenced files only once older
 * than 7 days.
 */
final class CleanupCommand {
  static final String USAGE =
      "cleanup <dataset> [--older-than INSTANT] [--retain-versions N] [--branch B]"
          + " [--delete-unverified] [--json]";

  private CleanupCommand() {}

  static int run(List<String> raw, PrintStream out) {
    Args a =
        Args.parse(
            raw,
            Set.of("older-than", "retain-versions", "branch"),
            Set.of("delete-unverified", "json"));
    String location = a.positional(0, "<dataset>");
    if (a.positionalCount() > 1) {
      throw new Args.UsageException(
          "unexpected argument \"" + a.positional(1, "") + "\"; options start with --");
    }
    if (!a.has("older-than") && !a.has("retain-versions")) {
      throw new Args.UsageException(
          "give --older-than (an ISO-8601 instant) and/or --retain-versions N");
    }
    Optional<Instant> olderThan = Optional.empty();
    if (a.has("older-than")) {
      try {
        olderThan = Optional.of(Instant.parse(a.get("older-than").trim()));
      } catch (DateTimeParseException e) {
        throw new Args.UsageException(
            "option --older-than must be an ISO-8601 instant such as "
                + "2026-12-01T00:00:00Z, got \""
                + a.get("older-than")
                + "\"");
      }
    }
    OptionalInt retain = OptionalInt.empty();
    Integer n = a.intOption("retain-versions");
    if (n != null) {
      if (n < 1) {
        throw new Args.UsageException(
            "option --retain-versions must be at least 1 (the latest version is always "
                + "kept), got "
                + n);
      }
      retain = OptionalInt.of(n);
    }
    try (Dataset ds = Dataset.open(location, a.openOptions())) {
      CleanupResult r =
          ds.cleanup(new CleanupOptions(olderThan, retain, a.flag("delete-unverified")));
      if (a.flag("json")) {
        Map<String, Object> obj = new LinkedHashMap<>();
        obj.put("dataset", ds.location());
        obj.put("latest_version", ds.version());
        obj.put("versions_removed", r.versionsRemoved());
        obj.put("data_files_removed", r.dataFilesRemoved());
        obj.put("deletion_files_removed", r.deletionFilesRemoved());
        obj.put("transaction_files_removed", r.transactionFilesRemoved());
        obj.put("index_segments_removed", r.indexSegmentsRemoved());
        obj.put("unreferenced_files_removed", r.unreferencedFilesRemoved());
        obj.put("bytes_removed", r.bytesRemoved());
        out.println(JsonRows.json(obj));
      } else {
        out.printf(
            "removed %d versions %s, %d data files, %d deletion files, %d transaction files, %d index "
                + "segments (%d files no version referenced), %,d bytes; latest version %d%n",
            r.versionsRemoved().size(),
            r.versionsRemoved(),
            r.dataFilesRemoved(),
            r.deletionFilesRemoved(),
            r.transactionFilesRemoved(),
            r.indexSegmentsRemoved(),
            r.unreferencedFilesRemoved(),
            r.bytesRemoved(),
            ds.version());
      }
    }
    return 0;
  }
}
