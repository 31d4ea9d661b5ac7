package dev.lancelot.spark.recall;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One row of a distributed recall report (SPEC E1, E2): one scenario under one grid setting and one
 * k. Numbers are NaN (null in the outputs) when the cell was not measured; {@code note} says why.
 *
 * @param scenario the scenario's label ({@code no filter}, {@code prefilter}, …)
 * @param params the grid setting ({@code nprobes=4, refine_factor=2}, {@code defaults}; {@code -}
 *     for a skipped scenario)
 * @param metric the metric of the exact search the results were compared with (null when not
 *     measured)
 * @param k the k of the searches
 * @param recall recall@k averaged over the queries
 * @param recallP5 the 5th percentile of the queries' recall@k
 * @param rowsPerQuery rows returned per query, averaged
 * @param p50Ms median of the queries' executor search time (summed over their search units), in ms
 * @param p99Ms 99th percentile of the same, in ms
 * @param partitionsProbed index partitions probed per query, averaged
 * @param distancesComputed distances computed per query, averaged
 * @param note why the cell was not measured (null when it was)
 */
public record RecallResult(
    String scenario,
    String params,
    String metric,
    int k,
    double recall,
    double recallP5,
    double rowsPerQuery,
    double p50Ms,
    double p99Ms,
    double partitionsProbed,
    double distancesComputed,
    String note) {

  static RecallResult notMeasured(String scenario, String params, int k, String note) {
    return new RecallResult(
        scenario,
        params,
        null,
        k,
        Double.NaN,
        Double.NaN,
        Double.NaN,
        Double.NaN,
        Double.NaN,
        Double.NaN,
        Double.NaN,
        note);
  }

  public boolean measured() {
    return note == null;
  }

  /**
   * The fields under their output names ({@code results.json}, {@code results.lance}), NaN as null.
   */
  public Map<String, Object> fields() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("scenario", scenario);
    m.put("params", params);
    m.put("metric", metric);
    m.put("k", k);
    m.put("recall", orNull(recall));
    m.put("recall_p5", orNull(recallP5));
    m.put("rows_per_query", orNull(rowsPerQuery));
    m.put("p50_ms", orNull(p50Ms));
    m.put("p99_ms", orNull(p99Ms));
    m.put("partitions_probed", orNull(partitionsProbed));
    m.put("distances_computed", orNull(distancesComputed));
    m.put("note", note);
    return m;
  }

  private static Double orNull(double v) {
    return Double.isNaN(v) ? null : v;
  }
}
