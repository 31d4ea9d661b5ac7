package dev.lancelot.cli;

import dev.lancelot.engine.CompactionOptions;
import dev.lancelot.engine.CompactionResult;
import dev.lancelot.engine.Dataset;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code compact <dataset> [--target-rows-per-fragment N] [--no-materialize-deletions]
 * [--target-base B] [--json]}: {@link Dataset#compact} — small fragments and fragments with many
 * deleted rows rewritten into larger ones (under registered base B when given, D68), index segments
 * remapped, one version (decision D23).
 */
final class CompactCommand {
  static final String USAGE =
      "compact <dataset> [--target-rows-per-fragment N] [--no-materialize-deletions]"
          + " [--target-base B] [--json]";

  private CompactCommand() {}

  static int run(List<String> raw, PrintStream out) {
    Args a =
        Args.parse(
            raw,
            Set.of("target-rows-per-fragment", "target-base"),
            Set.of("no-materialize-deletions", "json"));
    String location = a.positional(0, "<dataset>");
    if (a.positionalCount() > 1) {
      throw new Args.UsageException(
          "unexpected argument \"" + a.positional(1, "") + "\"; options start with --");
    }
    CompactionOptions options =
        CompactionOptions.defaults()
            .withMaterializeDeletions(!a.flag("no-materialize-deletions"))
            .withTargetBase(a.get("target-base"));
    Integer target = a.intOption("target-rows-per-fragment");
    if (target != null) {
      if (target < 1) {
        throw new Args.UsageException(
            "option --target-rows-per-fragment must be at least 1, got " + target);
      }
      options = options.withTargetRowsPerFragment(target);
    }
    try (Dataset ds = Dataset.open(location)) {
      CompactionResult r = ds.compact(options);
      if (a.flag("json")) {
        Map<String, Object> obj = new LinkedHashMap<>();
        obj.put("dataset", ds.location());
        obj.put("version", r.dataset().version());
        obj.put("committed", r.committed());
        obj.put("fragments_removed", r.fragmentsRemoved());
        obj.put("fragments_added", r.fragmentsAdded());
        obj.put("files_removed", r.filesRemoved());
        obj.put("files_added", r.filesAdded());
        obj.put("rows_rewritten", r.rowsRewritten());
        obj.put("index_segments_remapped", r.indexSegmentsRemapped());
        out.println(JsonRows.json(obj));
      } else if (!r.committed()) {
        out.printf("nothing to compact; dataset stays at version %d%n", ds.version());
      } else {
        out.printf(
            "compacted %d fragments into %d (%,d rows), remapped %d index segments; dataset is now at "
                + "version %d%n",
            r.fragmentsRemoved(),
            r.fragmentsAdded(),
            r.rowsRewritten(),
            r.indexSegmentsRemapped(),
            r.dataset().version());
      }
    }
    return 0;
  }
}
