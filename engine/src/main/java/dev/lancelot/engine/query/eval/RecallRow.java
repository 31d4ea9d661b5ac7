package dev.lancelot.engine.query.eval;

/**
 * One line of a recall report (SPEC E1, E2): a scenario under one parameter setting, with rows
 * returned, recall@k against exact search on the same version, and latency. {@code note} explains
 * a scenario that could not be measured.
 */
public record RecallRow(String scenario, String setting, int queries, double meanRows, double recall,
    double p50Millis, double p99Millis, String note) {

  public boolean measured() {
    return note == null;
  }
}
