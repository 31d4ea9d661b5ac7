package dev.lancelot.engine.expr;

import java.util.Objects;

/**
 * {@code column op literal}. A comparison written literal-first ({@code 3 < x}) is stored
 * column-first ({@code x > 3}). With a NULL operand the comparison is unknown.
 */
public record Comparison(Column column, CompareOp op, Literal value) implements Predicate {
  public Comparison {
    Objects.requireNonNull(column, "column");
    Objects.requireNonNull(op, "op");
    Objects.requireNonNull(value, "value");
  }

  @Override
  public String toSql() {
    return column.toSql() + " " + op.sql() + " " + value.toSql();
  }

  @Override
  public String toString() {
    return toSql();
  }
}
