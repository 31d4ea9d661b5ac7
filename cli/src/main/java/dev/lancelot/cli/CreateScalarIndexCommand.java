package dev.lancelot.cli;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.index.scalar.BTreeBuildParams;
import dev.lancelot.engine.index.scalar.BTreeIndexBuilder;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code create-scalar-index <dataset> --column tenant_id [--type btree]}: builds a BTree index
 * over every fragment and commits it as a new version.
 */
final class CreateScalarIndexCommand {
  static final String USAGE =
      "create-scalar-index <dataset> --column tenant_id [--type btree] "
          + "[--name tenant_id_idx] [--replace] [--json]";

  private CreateScalarIndexCommand() {}

  static int run(List<String> raw, PrintStream out) {
    Args a = Args.parse(raw, Set.of("column", "type", "name"), Set.of("replace", "json"));
    String location = a.positional(0, "<dataset>");
    if (a.positionalCount() > 1) {
      throw new Args.UsageException(
          "unexpected argument \"" + a.positional(1, "") + "\"; options start with --");
    }
    String column = a.get("column");
    if (column == null) {
      throw new Args.UsageException("missing --column (the column to index)");
    }
    String type = a.get("type", "btree").trim().toLowerCase(Locale.ROOT);
    if (!type.equals("btree")) {
      throw new Args.UsageException(
          "unknown scalar index type \""
              + a.get("type")
              + "\"; the only scalar index "
              + "type is btree"
              + (type.startsWith("ivf") ? " (vector indexes are built with create-index)" : ""));
    }
    BTreeBuildParams params = BTreeBuildParams.of(column).withReplace(a.flag("replace"));
    if (a.has("name")) {
      params = params.withName(a.get("name"));
    }
    try (Dataset ds = Dataset.open(location)) {
      long started = System.nanoTime();
      Dataset next = BTreeIndexBuilder.build(ds, params);
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
            "created BTREE index \"%s\" on %s in %.1f s; dataset is now at version %d%n",
            params.name(), column, millis / 1000.0, next.version());
        IndexReport.print(index, out);
      }
    }
    return 0;
  }
}
