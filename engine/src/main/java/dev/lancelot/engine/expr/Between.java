package dev.lancelot.engine.expr;

import java.util.Objects;

/**
 * {@code column [NOT] BETWEEN low AND high}: the same as {@code column >= low AND column <= high}
 * (three-valued), so a range with {@code low > high} is empty.
 */
public record Between(Column column, Literal low, Literal high, boolean negated)
    implements Predicate {
  public Between {
    Objects.requireNonNull(column, "column");
    Objects.requireNonNull(low, "low");
    Objects.requireNonNull(high, "high");
  }

  @Override
  public String toSql() {
    return column.toSql()
        + (negated ? " NOT BETWEEN " : " BETWEEN ")
        + low.toSql()
        + " AND "
        + high.toSql();
  }

  @Override
  public String toString() {
    return toSql();
  }
}
