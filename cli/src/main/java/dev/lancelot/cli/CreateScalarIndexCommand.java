package dev.lancelot.cli;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.scalar.ScalarBuildParams;
import dev.lancelot.engine.index.scalar.ScalarIndexBuilder;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code create-scalar-index <dataset> --column tenant_id [--type
 * btree|bitmap|zonemap|bloom_filter|label_list]}: builds a scalar index over every fragment and
 * commits it as a new version.
 */
final class CreateScalarIndexCommand {
  static final String USAGE =
      "create-scalar-index <dataset> --column tenant_id"
          + " [--type btree|bitmap|zonemap|bloom_filter|label_list|ngram] "
          + "[--name tenant_id_idx] [--rows-per-zone 8192] [--items-per-zone 8192] "
          + "[--probability 0.00057] [--replace] [--json]";

  private CreateScalarIndexCommand() {}

  static int run(List<String> raw, PrintStream out) {
    Args a =
        Args.parse(
            raw,
            Set.of("column", "type", "name", "rows-per-zone", "items-per-zone", "probability"),
            Set.of("replace", "json"));
    String location = a.positional(0, "<dataset>");
    if (a.positionalCount() > 1) {
      throw new Args.UsageException(
          "unexpected argument \"" + a.positional(1, "") + "\"; options start with --");
    }
    String column = a.get("column");
    if (column == null) {
      throw new Args.UsageException("missing --column (the column to index)");
    }
    IndexType type;
    try {
      type = ScalarBuildParams.parseType(a.get("type", "btree"));
    } catch (InvalidInputException e) {
      throw new Args.UsageException(
          e.getMessage()
              + (a.get("type").trim().toLowerCase(Locale.ROOT).startsWith("ivf")
                  ? " Vector indexes are built with create-index."
                  : ""));
    }
    ScalarBuildParams params = ScalarBuildParams.of(type, column).withReplace(a.flag("replace"));
    if (a.has("name")) {
      params = params.withName(a.get("name"));
    }
    if (a.has("rows-per-zone")) {
      if (type != IndexType.ZONEMAP) {
        throw new Args.UsageException("--rows-per-zone applies to --type zonemap only");
      }
      params = params.withRowsPerZone(number(a, "rows-per-zone"));
    }
    if (a.has("items-per-zone") || a.has("probability")) {
      if (type != IndexType.BLOOM_FILTER) {
        throw new Args.UsageException(
            "--items-per-zone and --probability apply to --type bloom_filter only");
      }
      long items = a.has("items-per-zone") ? number(a, "items-per-zone") : params.bloomItems();
      double p;
      try {
        p =
            a.has("probability")
                ? Double.parseDouble(a.get("probability").trim())
                : params.bloomProbability();
      } catch (NumberFormatException e) {
        throw new Args.UsageException(
            "--probability must be a number, got \"" + a.get("probability") + "\"");
      }
      params = params.withBloomFilter(items, p);
    }
    try (Dataset ds = Dataset.open(location)) {
      long started = System.nanoTime();
      Dataset next = ScalarIndexBuilder.build(ds, params);
      long millis = (System.nanoTime() - started) / 1_000_000;
      Map<String, Object> index = IndexReport.describe(next, params.name());
      if (a.flag("json")) {
        Map<String, Object> obj = new LinkedHashMap<>();
        obj.put("dataset", next.location());
        obj.put("version", next.version());
        obj.put("build_millis", millis);
        obj.put("index", index);
        out.println(JsonRows.json(obj));
      } else {
        out.printf(
            "created %s index \"%s\" on %s in %.1f s; dataset is now at version %d%n",
            type, params.name(), column, millis / 1000.0, next.version());
        IndexReport.print(index, out);
      }
    }
    return 0;
  }

  private static long number(Args a, String option) {
    try {
      return Long.parseLong(a.get(option).trim());
    } catch (NumberFormatException e) {
      throw new Args.UsageException(
          "--" + option + " must be a whole number, got \"" + a.get(option) + "\"");
    }
  }
}
