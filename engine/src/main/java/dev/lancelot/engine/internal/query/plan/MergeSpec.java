package dev.lancelot.engine.internal.query.plan;

import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.vector.DistanceMetric;
import java.io.Serializable;
import java.util.List;

/**
 * How unit results become the answer (SPEC Q6, Q8, Q9, Q13, Q14): ANN candidates of every segment
 * are cut to the best {@code candidateK} by approximate distance; with {@code exactRerank} they are
 * ranked with flat results by exact distance; the best {@code k} (ties by row address, within the
 * distance range) are kept; a postfilter then removes rows (never backfilled); finally the result
 * columns are taken for the surviving rows only.
 */
public record MergeSpec(
    int k,
    int candidateK,
    boolean exactRerank,
    DistanceMetric metric,
    BoundPredicate postfilter,
    List<String> columns,
    boolean withRowId,
    Float lowerBound,
    Float upperBound)
    implements Serializable {
  public MergeSpec {
    columns = List.copyOf(columns);
  }

  /** The postfilter as the user wrote it, for explain output; null without one. */
  public String postfilterSql() {
    return postfilter == null ? null : postfilter.sql();
  }
}
