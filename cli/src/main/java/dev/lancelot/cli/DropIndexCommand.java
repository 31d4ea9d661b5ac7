package dev.lancelot.cli;

import dev.lancelot.engine.Dataset;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code drop-index <dataset> --name NAME [--json]}: {@link Dataset#dropIndex} — a new version
 * without any segment of the index, Lance's {@code drop_index} (decision D60).
 */
final class DropIndexCommand {
  static final String USAGE = "drop-index <dataset> --name NAME [--json]";

  private DropIndexCommand() {}

  static int run(List<String> raw, PrintStream out) {
    Args a = Args.parse(raw, Set.of("name"), Set.of("json"));
    String location = a.positional(0, "<dataset>");
    if (a.positionalCount() > 1) {
      throw new Args.UsageException(
          "unexpected argument \"" + a.positional(1, "") + "\"; options start with --");
    }
    if (!a.has("name")) {
      throw new Args.UsageException("give the index to drop with --name NAME");
    }
    String name = a.get("name");
    try (Dataset ds = Dataset.open(location)) {
      int segments = ds.indexes().segments(name).size();
      try (Dataset dropped = ds.dropIndex(name)) {
        if (a.flag("json")) {
          Map<String, Object> obj = new LinkedHashMap<>();
          obj.put("dataset", ds.location());
          obj.put("version", dropped.version());
          obj.put("dropped_index", name);
          obj.put("segments", segments);
          out.println(JsonRows.json(obj));
        } else {
          out.printf(
              "dropped index %s (%d segment%s) as version %d%n",
              name, segments, segments == 1 ? "" : "s", dropped.version());
        }
      }
    }
    return 0;
  }
}
