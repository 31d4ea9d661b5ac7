package dev.lancelot.engine.query.eval;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentInfo;
import dev.lancelot.engine.internal.scan.ScanSpec;
import dev.lancelot.engine.query.InvalidQueryException;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.query.VectorSearch;
import dev.lancelot.engine.query.VectorSearchResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.UInt8Vector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recall evaluation (SPEC E1, E2): runs the five scenarios of E2 — no filter, prefilter, highly
 * selective prefilter, unindexed data present, fast_search — for every parameter setting of a grid,
 * each against exact search ({@code use_index=false}, SPEC Q11) with the same filter and filter
 * placement on the same version, ranked by the metric the search itself uses: the setting's {@code
 * metric} when it names one, else the index's (SPEC Q3; see {@link VectorSearch#exactCounterpart}).
 * Recall@k = |ANN ∩ exact| / min(k, |exact|), averaged over queries (the denominator is the exact
 * result's size when a filter admits fewer than k rows).
 */
public final class RecallEvaluator {
  private static final Logger LOG = LoggerFactory.getLogger(RecallEvaluator.class);

  /** The scenarios of SPEC E2, in report order. */
  public enum Scenario {
    NO_FILTER("no filter"),
    PREFILTER("prefilter"),
    SELECTIVE_PREFILTER("highly selective prefilter"),
    UNINDEXED("unindexed data present"),
    FAST_SEARCH("fast_search");

    private final String label;

    Scenario(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  /**
   * @param filter the filter of the prefilter scenario (null: not measured)
   * @param selectiveFilter the filter of the highly selective scenario (null: not measured)
   */
  public record Options(String column, int k, String filter, String selectiveFilter) {}

  private RecallEvaluator() {}

  /**
   * Expands a grid such as {@code "nprobes=1,4,16;refine_factor=1,4"} into settings (cartesian
   * product, in order). {@code refine_factor=1} keeps Lance's default of no refine step.
   */
  public static List<Map<String, Object>> parseGrid(String grid) {
    List<Map<String, Object>> settings = new ArrayList<>();
    settings.add(new LinkedHashMap<>());
    if (grid == null || grid.isBlank()) {
      return settings;
    }
    for (String part : grid.split(";", -1)) {
      if (part.isBlank()) {
        continue; // "nprobes=1,4;" as well as "nprobes=1,4"
      }
      String[] kv = part.split("=", 2);
      if (kv.length != 2 || kv[0].isBlank()) {
        throw new InvalidQueryException(
            "Cannot parse grid \""
                + grid
                + "\": expected "
                + "name=v1,v2;name=v1,... e.g. \"nprobes=1,4,16;refine_factor=1,4\".");
      }
      String[] values = kv[1].split(",", -1);
      for (String v : values) {
        if (v.isBlank()) {
          throw new InvalidQueryException(
              "Cannot parse grid \""
                  + grid
                  + "\": parameter \""
                  + kv[0].trim()
                  + "\" has an empty value. Give one or more values separated by commas, e.g. \"nprobes=1,4,16\".");
        }
      }
      List<Map<String, Object>> next = new ArrayList<>();
      for (Map<String, Object> s : settings) {
        for (String v : values) {
          Map<String, Object> copy = new LinkedHashMap<>(s);
          copy.put(kv[0].trim(), parseValue(v.trim()));
          next.add(copy);
        }
      }
      settings = next;
    }
    return settings;
  }

  private static Object parseValue(String v) {
    if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) {
      return Boolean.parseBoolean(v);
    }
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      return v;
    }
  }

  /** Query parameters the evaluation sets itself, so a grid may not vary them. */
  private static final Set<String> FIXED =
      Set.of("column", "q", "k", "columns", "with_row_id", "filter");

  /**
   * Measures every scenario under every setting of {@code grid}. Bad input (no queries, a grid
   * parameter that is unknown, fixed by the evaluation or of the wrong type) fails before anything
   * runs; a setting that cannot run in one scenario (e.g. {@code use_index=false} with fast_search)
   * is reported as not measured, with the reason, and the others are still measured.
   */
  public static List<RecallRow> evaluate(
      Dataset dataset, float[][] queries, Options options, List<Map<String, Object>> grid) {
    if (queries.length == 0) {
      throw new InvalidQueryException(
          "Cannot evaluate recall: there are no query vectors. Give at least one.");
    }
    RecallPlan plan =
        RecallPlan.plan(
            dataset,
            new RecallPlan.Request(
                options.column(),
                List.of(options.k()),
                grid,
                options.filter(),
                options.selectiveFilter()));
    List<RecallRow> rows = new ArrayList<>();
    Map<RecallPlan.TruthKey, List<Set<Long>>> truths = new HashMap<>();
    for (RecallPlan.Cell cell : plan.cells()) {
      if (!cell.measured()) {
        LOG.info("recall {} {}: {}", cell.scenario().label(), cell.setting(), cell.note());
        rows.add(notMeasured(cell.scenario(), cell.setting(), cell.note()));
        continue;
      }
      rows.add(measure(dataset, queries, cell, truths));
    }
    return rows;
  }

  /**
   * Checks one grid setting before anything runs: a parameter the evaluation sets itself ({@code
   * column}, {@code q}, {@code k}, {@code columns}, {@code with_row_id}, {@code filter}), an
   * unknown parameter or a bad value fails with an {@link InvalidQueryException} naming it.
   */
  public static void checkSetting(Map<String, Object> setting, Options o) {
    for (String name : setting.keySet()) {
      if (FIXED.contains(name)) {
        throw new InvalidQueryException(
            "Cannot evaluate recall with grid parameter \""
                + name
                + "\": the "
                + "evaluation sets it itself. Vary only search parameters such as nprobes, refine_factor, ef or metric.");
      }
    }
    // unknown names and bad values fail here
    VectorQuery.parametersFromMap(scenarioParameters(o, Scenario.NO_FILTER, setting));
  }

  /** The vector index on the evaluated column (null: none) and the live rows it does not cover. */
  public record IndexState(String indexName, long unindexedRows) {
    public static IndexState of(Dataset dataset, String column) {
      String indexName = dataset.indexes().vectorIndexOn(dataset.field(column).id()).orElse(null);
      long unindexedRows =
          indexName == null
              ? 0
              : dataset.indexes().unindexedFragments(indexName).stream()
                  .mapToLong(FragmentInfo::rows)
                  .sum();
      return new IndexState(indexName, unindexedRows);
    }
  }

  /** The filter of a scenario: the prefilter scenarios' filters, else null. */
  public static String filterOf(Scenario scenario, Options o) {
    return switch (scenario) {
      case PREFILTER -> o.filter();
      case SELECTIVE_PREFILTER -> o.selectiveFilter();
      default -> null;
    };
  }

  /**
   * Why {@code scenario} cannot be measured on this dataset with these options (the note of its
   * "not measured" row), or null when it can.
   */
  public static String skipReason(Scenario scenario, Options o, IndexState index) {
    return skipReason(scenario, o, index.indexName(), index.unindexedRows());
  }

  private static String skipReason(Scenario s, Options o, String index, long unindexedRows) {
    if (index == null
        && s != Scenario.NO_FILTER
        && s != Scenario.PREFILTER
        && s != Scenario.SELECTIVE_PREFILTER) {
      return "no vector index on \"" + o.column() + "\"";
    }
    return switch (s) {
      case PREFILTER -> o.filter() == null ? "not measured: give a filter" : null;
      case SELECTIVE_PREFILTER ->
          o.selectiveFilter() == null ? "not measured: give a selective filter" : null;
      case UNINDEXED, FAST_SEARCH ->
          unindexedRows == 0
              ? "not applicable: every fragment is indexed (append data after the index to measure)"
              : null;
      default -> null;
    };
  }

  /**
   * Lance's {@code nearest} parameters (without {@code q}) of the search under {@code setting} in
   * {@code scenario}: the scenario's filter as a prefilter, {@code fast_search} in that scenario,
   * the setting ({@code refine_factor=1} meaning no refine step, Lance's default), then the
   * evaluation's own column, k, no result columns and row ids. {@link
   * VectorQuery#parametersFromMap} reads them.
   */
  public static Map<String, Object> scenarioParameters(
      Options o, Scenario scenario, Map<String, Object> setting) {
    String filter = filterOf(scenario, o);
    Map<String, Object> params = new LinkedHashMap<>();
    if (filter != null) {
      params.put("filter", filter);
      params.put("prefilter", true);
    }
    if (scenario == Scenario.FAST_SEARCH) {
      params.put("fast_search", true);
    }
    params.putAll(setting);
    if (Integer.valueOf(1).equals(params.get("refine_factor"))) {
      params.remove("refine_factor");
    }
    params.put("column", o.column());
    params.put("k", o.k());
    params.put("columns", List.of());
    params.put("with_row_id", true);
    return params;
  }

  private static RecallRow measure(
      Dataset dataset,
      float[][] queries,
      RecallPlan.Cell cell,
      Map<RecallPlan.TruthKey, List<Set<Long>>> truths) {
    List<Set<Long>> truth =
        truths.computeIfAbsent(
            cell.truth(),
            key -> {
              List<Set<Long>> t = new ArrayList<>(queries.length);
              for (float[] q : queries) {
                t.add(ids(dataset, cell.exact().toBuilder().vector(q).build()));
              }
              return t;
            });
    List<RecallPlan.QueryOutcome> outcomes = new ArrayList<>(queries.length);
    for (int i = 0; i < queries.length; i++) {
      VectorQuery search = cell.search().toBuilder().vector(queries[i]).build();
      long start = System.nanoTime();
      Set<Long> got = ids(dataset, search);
      double millis = (System.nanoTime() - start) / 1e6;
      outcomes.add(cell.outcome(got, truth.get(i), millis, 0, 0));
    }
    RecallPlan.Summary s = cell.summarize(outcomes);
    RecallRow row =
        new RecallRow(
            cell.scenario().label(),
            cell.setting(),
            cell.metric(),
            queries.length,
            s.rowsPerQuery(),
            s.recall(),
            s.p50Millis(),
            s.p99Millis(),
            null);
    LOG.info(
        "recall {} {}: {} against exact {} search (rows {}, p50 {} ms)",
        cell.scenario().label(),
        row.setting(),
        String.format("%.4f", row.recall()),
        row.metric(),
        String.format("%.2f", row.meanRows()),
        String.format("%.2f", row.p50Millis()));
    return row;
  }

  private static RecallRow notMeasured(Scenario scenario, String setting, String why) {
    return new RecallRow(
        scenario.label(), setting, null, 0, 0, Double.NaN, Double.NaN, Double.NaN, why);
  }

  /**
   * Recall@k of one query (SPEC E1): the share of the exact answer's rows ({@code expected}, at
   * most k) that the search returned; when exact search finds nothing, 1 if the search found
   * nothing too.
   */
  public static double recallOf(Set<Long> got, Set<Long> expected, int k) {
    if (expected.isEmpty()) {
      return got.isEmpty() ? 1 : 0;
    }
    Set<Long> hit = new HashSet<>(got);
    hit.retainAll(expected);
    return (double) hit.size() / Math.min(k, expected.size());
  }

  private static Set<Long> ids(Dataset dataset, VectorQuery q) {
    try (VectorSearchResult r = VectorSearch.search(dataset, q)) {
      UInt8Vector ids = (UInt8Vector) r.rows().getVector(ScanSpec.ROW_ID);
      Set<Long> out = new HashSet<>();
      for (int i = 0; i < r.rowCount(); i++) {
        out.add(ids.get(i));
      }
      return out;
    }
  }

  /**
   * The {@code p} quantile (0..1) of sorted values by the nearest-rank rule: the value at rank
   * ⌈p·n⌉; NaN for no value. Latency percentiles and {@code recall_p5} use it.
   */
  public static double percentile(double[] sorted, double p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int idx = (int) Math.ceil(p * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, idx))];
  }

  /** A setting as the report names it: {@code nprobes=4, refine_factor=2}, or {@code defaults}. */
  public static String describe(Map<String, Object> setting) {
    if (setting.isEmpty()) {
      return "defaults";
    }
    StringBuilder sb = new StringBuilder();
    setting.forEach(
        (k, v) -> {
          if (sb.length() > 0) {
            sb.append(", ");
          }
          sb.append(k).append('=').append(v);
        });
    return sb.toString();
  }
}
