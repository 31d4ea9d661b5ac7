package dev.lancelot.engine.expr;

import java.util.Objects;

/** {@code value IS [NOT] NULL} for a value that is not a plain column ({@link IsNull}). */
public record ValueIsNull(Expr value, boolean negated) implements Predicate {
  public ValueIsNull {
    Objects.requireNonNull(value, "value");
    if (value instanceof Column) {
      throw new IllegalArgumentException("a column IS NULL is an IsNull");
    }
  }

  @Override
  public String toSql() {
    return value.toSql() + (negated ? " IS NOT NULL" : " IS NULL");
  }

  @Override
  public String toString() {
    return toSql();
  }
}
