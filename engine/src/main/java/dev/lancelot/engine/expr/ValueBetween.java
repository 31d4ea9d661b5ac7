package dev.lancelot.engine.expr;

import java.util.Objects;

/**
 * {@code value [NOT] BETWEEN low AND high} over any values: {@code value >= low AND value <= high}.
 * A column between two literals is a {@link Between} instead.
 */
public record ValueBetween(Expr value, Expr low, Expr high, boolean negated) implements Predicate {
  public ValueBetween {
    Objects.requireNonNull(value, "value");
    Objects.requireNonNull(low, "low");
    Objects.requireNonNull(high, "high");
    if (value instanceof Column && low instanceof Literal && high instanceof Literal) {
      throw new IllegalArgumentException(
          "a column between literals is a Between; use "
              + "Predicates.between(value, low, high, negated)");
    }
  }

  @Override
  public String toSql() {
    return value.toSql()
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
