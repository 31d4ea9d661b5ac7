package dev.lancelot.engine.internal.query.plan;

import dev.lancelot.engine.expr.BoundPredicate;
import java.io.Serializable;

/**
 * Where an ANN unit's prefilter mask comes from (SPEC Q7): a scalar index that answers the filter
 * exactly and covers every fragment the unit searches, or else a scan reading only the filter's
 * columns. {@code reason} says why the scan was chosen, for explain output. The filter is bound
 * once, by the planner.
 */
public record PrefilterSpec(BoundPredicate filter, Source source, String scalarIndex, String reason)
    implements Serializable {
  /** The filter as the user wrote it, for explain output. */
  public String filterSql() {
    return filter.sql();
  }

  public enum Source {
    SCALAR_INDEX,
    SCAN
  }
}
