package dev.lancelot.cli;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.query.VectorSearch;
import dev.lancelot.engine.query.VectorSearchResult;
import dev.lancelot.engine.query.eval.QuerySets;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * {@code search}, {@code explain} and {@code analyze}: one vector query, or a batch from a file.
 */
final class SearchCommand {
  static final String OPTIONS =
      "<dataset> --column vector (--q 0.1,0.2,... | --q-file queries.fvecs) --k 3 "
          + "[--metric cosine] [--nprobes N | --minimum-nprobes N --maximum-nprobes M] [--ef N] [--refine-factor N] "
          + "[--filter \"tenant_id = 42\"] [--prefilter] [--fast-search] [--no-index] [--columns id,tenant_id] "
          + "[--with-row-id] [--version V | --tag T] [--branch B] [--json]";
  static final Set<String> VALUED =
      Set.of(
          "column",
          "q",
          "q-file",
          "k",
          "metric",
          "nprobes",
          "minimum-nprobes",
          "maximum-nprobes",
          "ef",
          "refine-factor",
          "filter",
          "columns",
          "version",
          "tag",
          "branch");
  static final Set<String> FLAGS =
      Set.of("prefilter", "fast-search", "no-index", "with-row-id", "json");

  enum Mode {
    SEARCH,
    EXPLAIN,
    ANALYZE
  }

  private SearchCommand() {}

  static int run(Mode mode, List<String> raw, PrintStream out) {
    Args a = Args.parse(raw, VALUED, FLAGS);
    String location = a.positional(0, "<dataset>");
    OpenOptions open = a.openOptions();
    try (Dataset ds = Dataset.open(location, open)) {
      VectorQuery query = query(a);
      if (mode == Mode.EXPLAIN) {
        String plan = VectorSearch.explain(ds, query);
        out.print(a.flag("json") ? JsonRows.json(Map.of("plan", plan)) + "\n" : plan);
        return 0;
      }
      try (VectorSearchResult r = VectorSearch.search(ds, query)) {
        if (mode == Mode.ANALYZE) {
          String text = r.analyze();
          out.print(
              a.flag("json")
                  ? JsonRows.json(Map.of("plan", text, "rows", r.rowCount())) + "\n"
                  : text);
          return 0;
        }
        print(r, query, a.flag("json"), out);
      }
    }
    return 0;
  }

  static VectorQuery query(Args a) {
    String column = a.get("column");
    if (column == null) {
      throw new Args.UsageException("missing --column (the vector column to search)");
    }
    VectorQuery.Builder b = VectorQuery.builder(column);
    if (a.has("q") == a.has("q-file")) {
      throw new Args.UsageException("give exactly one of --q and --q-file");
    }
    if (a.has("q")) {
      b.vector(a.floats("q"));
    } else {
      b.vectors(QuerySets.readFvecs(Path.of(a.get("q-file")), 0));
    }
    if (a.has("k")) {
      b.k(a.intOption("k"));
    }
    if (a.has("metric")) {
      b.metric(a.get("metric"));
    }
    if (a.has("nprobes")) {
      b.nprobes(a.intOption("nprobes"));
    }
    if (a.has("minimum-nprobes")) {
      b.minimumNprobes(a.intOption("minimum-nprobes"));
    }
    if (a.has("maximum-nprobes")) {
      b.maximumNprobes(a.intOption("maximum-nprobes"));
    }
    if (a.has("ef")) {
      b.ef(a.intOption("ef"));
    }
    if (a.has("refine-factor")) {
      b.refineFactor(a.intOption("refine-factor"));
    }
    b.filter(a.get("filter"))
        .prefilter(a.flag("prefilter"))
        .fastSearch(a.flag("fast-search"))
        .useIndex(!a.flag("no-index"))
        .withRowId(a.flag("with-row-id"));
    if (a.has("columns")) {
      b.columns(
          Arrays.stream(a.get("columns").split(",", -1))
              .map(String::trim)
              .filter(s -> !s.isEmpty())
              .toList());
    }
    return b.build();
  }

  private static void print(
      VectorSearchResult r, VectorQuery query, boolean json, PrintStream out) {
    VectorSchemaRoot rows = r.rows();
    String plan = r.explain();
    if (!query.isBatch()) {
      if (json) {
        Map<String, Object> obj = new LinkedHashMap<>();
        obj.put("rows", JsonRows.rows(rows, 0, rows.getRowCount()));
        obj.put("plan", plan);
        out.println(JsonRows.json(obj));
      } else {
        out.print(JsonRows.table(JsonRows.rows(rows, 0, rows.getRowCount())));
      }
      return;
    }
    IntVector qi = (IntVector) rows.getVector("query_index");
    int start = 0;
    for (int q = 0; q < query.vectors().length; q++) {
      int end = start;
      while (end < rows.getRowCount() && qi.get(end) == q) {
        end++;
      }
      List<Map<String, Object>> list = JsonRows.rows(rows, start, end);
      list.forEach(m -> m.remove("query_index"));
      if (json) {
        Map<String, Object> obj = new LinkedHashMap<>();
        obj.put("query_index", q);
        obj.put("rows", list);
        obj.put("plan", plan);
        out.println(JsonRows.json(obj));
      } else {
        out.println("query " + q);
        out.print(JsonRows.table(list));
      }
      start = end;
    }
  }
}
