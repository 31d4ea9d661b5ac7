package dev.lancelot.cli;

import dev.lancelot.engine.Dataset;
import java.io.PrintStream;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code restore <dataset> (--version N | --timestamp INSTANT) [--json]}: {@link Dataset#restore} —
 * the old version's content committed as a new latest version, Lance's {@code Restore} (decision
 * D55); a timestamp selects the latest version committed at or before it ({@link
 * Dataset#versionAt}).
 */
final class RestoreCommand {
  static final String USAGE = "restore <dataset> (--version N | --timestamp INSTANT) [--json]";

  private RestoreCommand() {}

  static int run(List<String> raw, PrintStream out) {
    Args a = Args.parse(raw, Set.of("version", "timestamp"), Set.of("json"));
    String location = a.positional(0, "<dataset>");
    if (a.positionalCount() > 1) {
      throw new Args.UsageException(
          "unexpected argument \"" + a.positional(1, "") + "\"; options start with --");
    }
    if (a.has("version") == a.has("timestamp")) {
      throw new Args.UsageException(
          "give exactly one of --version N and --timestamp INSTANT (ISO-8601, e.g. "
              + "2026-12-01T10:00:00Z)");
    }
    Instant timestamp = null;
    if (a.has("timestamp")) {
      try {
        timestamp = Instant.parse(a.get("timestamp").trim());
      } catch (DateTimeParseException e) {
        throw new Args.UsageException(
            "option --timestamp must be an ISO-8601 instant such as 2026-12-01T10:00:00Z, got \""
                + a.get("timestamp")
                + "\"");
      }
    }
    try (Dataset ds = Dataset.open(location)) {
      long version = timestamp == null ? a.intOption("version") : ds.versionAt(timestamp);
      try (Dataset restored = ds.restore(version)) {
        if (a.flag("json")) {
          Map<String, Object> obj = new LinkedHashMap<>();
          obj.put("dataset", ds.location());
          obj.put("version", restored.version());
          obj.put("restored_version", version);
          out.println(JsonRows.json(obj));
        } else {
          out.printf(
              "restored version %d as version %d (%,d rows)%n",
              version, restored.version(), restored.countRows());
        }
      }
    }
    return 0;
  }
}
