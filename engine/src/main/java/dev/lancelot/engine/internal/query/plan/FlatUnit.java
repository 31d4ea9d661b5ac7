package dev.lancelot.engine.internal.query.plan;

import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.vector.DistanceMetric;
import java.util.List;

/**
 * Exact nearest neighbours over fragments (SPEC Q9–Q11): reads the vector column (and, with a
 * prefilter, the filter's columns), skips deleted rows and rows failing {@code filter}, and keeps
 * the best {@code limit} rows by exact distance (ties by row address).
 *
 * @param filter the prefilter applied while scanning, bound once by the planner, or null
 *     (postfilter or no filter)
 * @param reason why flat search is used (unindexed fragments, no index, use_index=false, ...)
 */
public record FlatUnit(
    String id,
    List<Long> fragments,
    DistanceMetric metric,
    int limit,
    BoundPredicate filter,
    String reason)
    implements SearchUnit {
  public FlatUnit {
    fragments = List.copyOf(fragments);
  }

  /** The prefilter as the user wrote it, for explain output; null without one. */
  public String filterSql() {
    return filter == null ? null : filter.sql();
  }
}
