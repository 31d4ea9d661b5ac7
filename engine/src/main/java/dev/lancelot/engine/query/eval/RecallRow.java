package dev.lancelot.engine.query.eval;

/**
 * One line of a recall report (SPEC E1, E2): a scenario under one parameter setting, with rows
 * returned, recall@k against exact search on the same version, and latency. {@code metric} names
 * the metric of the exact search (the one the search ranked by); {@code note} explains a scenario
 * that could not be measured (then {@code metric} is null).
 */
public record RecallRow(
    String scenario,
    String setting,
    String metric,
    int queries,
    double meanRows,
    double recall,
    double p50Millis,
    double p99Millis,
    String note) {

  public boolean measured() {
    return note == null;
  }
}
