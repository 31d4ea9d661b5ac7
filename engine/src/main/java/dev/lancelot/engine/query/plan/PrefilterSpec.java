package dev.lancelot.engine.query.plan;

import java.io.Serializable;

/**
 * Where an ANN unit's prefilter mask comes from (SPEC Q7): a scalar index that answers the filter
 * exactly and covers every fragment the unit searches, or else a scan reading only the filter's
 * columns. {@code reason} says why the scan was chosen, for explain output.
 */
public record PrefilterSpec(String filterSql, Source source, String scalarIndex, String reason)
    implements Serializable {
  public enum Source {
    SCALAR_INDEX,
    SCAN
  }
}
