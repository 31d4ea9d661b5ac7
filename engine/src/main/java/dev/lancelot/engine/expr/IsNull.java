package dev.lancelot.engine.expr;

import java.util.Objects;

/** {@code column IS [NOT] NULL}; never unknown. Works on columns of any type. */
public record IsNull(Column column, boolean negated) implements Predicate {
  public IsNull {
    Objects.requireNonNull(column, "column");
  }

  @Override
  public String toSql() {
    return column.toSql() + (negated ? " IS NOT NULL" : " IS NULL");
  }

  @Override
  public String toString() {
    return toSql();
  }
}
