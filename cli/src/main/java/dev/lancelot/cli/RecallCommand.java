package dev.lancelot.cli;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.query.eval.QuerySets;
import dev.lancelot.engine.query.eval.RecallEvaluator;
import dev.lancelot.engine.query.eval.RecallRow;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * {@code recall <dataset> --q-file queries.fvecs --k 10 --grid "nprobes=1,4,16;refine_factor=1,4"}:
 * the five scenarios of SPEC E2 for every grid setting, against exact search on the same version.
 */
final class RecallCommand {
  static final String USAGE =
      "recall <dataset> [--column vector] (--q-file queries.fvecs | --q-dataset <dataset> "
          + "[--q-column vector]) [--queries N] --k 10 [--grid \"nprobes=1,4,16;refine_factor=1,4\"] "
          + "[--filter \"tenant_id < 10\"] [--selective-filter \"tenant_id = 42\"] [--version V | --tag T] [--branch B] [--json]";

  private RecallCommand() {}

  static int run(List<String> raw, PrintStream out) {
    Args a =
        Args.parse(
            raw,
            Set.of(
                "column",
                "q-file",
                "q-dataset",
                "q-column",
                "queries",
                "k",
                "grid",
                "filter",
                "selective-filter",
                "version",
                "tag",
                "branch"),
            Set.of("json"));
    String location = a.positional(0, "<dataset>");
    OpenOptions open = a.openOptions();
    int limit = a.has("queries") ? a.intOption("queries") : 0;
    String column = a.get("column", "vector");
    try (Dataset ds = Dataset.open(location, open)) {
      float[][] queries;
      if (a.has("q-file") == a.has("q-dataset")) {
        throw new Args.UsageException("give exactly one of --q-file and --q-dataset");
      } else if (a.has("q-file")) {
        queries = QuerySets.readFvecs(Path.of(a.get("q-file")), limit);
      } else {
        try (Dataset qs = Dataset.open(a.get("q-dataset"))) {
          queries = QuerySets.fromColumn(qs, a.get("q-column", "vector"), limit > 0 ? limit : 100);
        }
      }
      int k = a.has("k") ? a.intOption("k") : 10;
      List<RecallRow> rows =
          RecallEvaluator.evaluate(
              ds,
              queries,
              new RecallEvaluator.Options(column, k, a.get("filter"), a.get("selective-filter")),
              RecallEvaluator.parseGrid(a.get("grid")));
      if (a.flag("json")) {
        out.println(JsonRows.json(rows));
      } else {
        out.printf(
            "recall@%d over %d queries on %s version %d, against exact search in the metric each setting "
                + "searches with (the grid's metric, else the index's)%n",
            k, queries.length, ds.location(), ds.version());
        out.printf(
            "%-28s %-36s %-7s %10s %9s %9s %9s%n",
            "scenario", "setting", "metric", "rows", "recall", "p50 ms", "p99 ms");
        for (RecallRow r : rows) {
          if (!r.measured()) {
            out.printf("%-28s %-36s %s%n", r.scenario(), r.setting(), r.note());
          } else {
            out.printf(
                "%-28s %-36s %-7s %10.2f %9.4f %9.2f %9.2f%n",
                r.scenario(),
                r.setting(),
                r.metric(),
                r.meanRows(),
                r.recall(),
                r.p50Millis(),
                r.p99Millis());
          }
        }
      }
    }
    return 0;
  }
}
