package dev.lancelot.engine.expr;

import java.util.Objects;

/**
 * A bool-valued expression used as a condition, e.g. {@code starts_with(name, 'a')} or {@code
 * CAST(n AS BOOLEAN)}: true, false or NULL per row. A bool column alone is a {@link BooleanColumn}.
 */
public record BooleanValue(Expr value) implements Predicate {
  public BooleanValue {
    Objects.requireNonNull(value, "value");
    if (value instanceof Column || value instanceof Literal) {
      throw new IllegalArgumentException("a column is a BooleanColumn, a literal a Constant");
    }
  }

  @Override
  public String toSql() {
    return value.toSql();
  }

  @Override
  public String toString() {
    return toSql();
  }
}
