package dev.lancelot.engine.expr;

import java.util.Objects;

/** A boolean column used as a predicate ({@code WHERE flag}): true, false or NULL per row. */
public record BooleanColumn(Column column) implements Predicate {
  public BooleanColumn {
    Objects.requireNonNull(column, "column");
  }

  @Override
  public String toSql() {
    return column.toSql();
  }

  @Override
  public String toString() {
    return toSql();
  }
}
