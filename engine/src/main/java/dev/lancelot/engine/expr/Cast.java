package dev.lancelot.engine.expr;

import java.util.Objects;

/**
 * {@code CAST(value AS type)}. A value the type cannot hold (an out-of-range number, a string that
 * is not a number, NaN to an integer) is an error when the filter is evaluated, as in Lance.
 */
public record Cast(Expr value, CastType type) implements Expr {
  public Cast {
    Objects.requireNonNull(value, "value");
    Objects.requireNonNull(type, "type");
  }

  @Override
  public String toSql() {
    return "CAST(" + value.toSql() + " AS " + type.sql() + ")";
  }

  @Override
  public String toString() {
    return toSql();
  }
}
