package dev.lancelot.engine.expr;

import java.util.Objects;

/**
 * {@code left op right} between any two values, e.g. {@code a < b} or {@code id % 7 = 3}. The
 * operands meet in a common type as in Lance (see {@code docs/filters.md}); with a NULL operand the
 * comparison is unknown. A column compared with a literal is a {@link Comparison} instead (the form
 * scalar indexes answer), so this record refuses that shape.
 */
public record ValueComparison(Expr left, CompareOp op, Expr right) implements Predicate {
  public ValueComparison {
    Objects.requireNonNull(left, "left");
    Objects.requireNonNull(op, "op");
    Objects.requireNonNull(right, "right");
    if ((left instanceof Column && right instanceof Literal)
        || (left instanceof Literal && right instanceof Column)) {
      throw new IllegalArgumentException(
          "a column compared with a literal is a Comparison; use "
              + "Predicates.compare(left, op, right)");
    }
  }

  @Override
  public String toSql() {
    return left.toSql() + " " + op.sql() + " " + right.toSql();
  }

  @Override
  public String toString() {
    return toSql();
  }
}
