package dev.lancelot.engine.expr;

import java.util.Objects;

/**
 * {@code left op right} for {@code + - * / %}, with the operand types and overflow rules of Lance
 * (DataFusion): integers of different widths meet in the narrowest type holding both and wrap on
 * overflow, an integer with a float becomes that float type, integer division truncates toward zero
 * and {@code %} takes the dividend's sign, integer division by zero is an error. See {@code
 * docs/filters.md}.
 */
public record Arithmetic(Expr left, ArithmeticOp op, Expr right) implements Expr {
  public Arithmetic {
    Objects.requireNonNull(left, "left");
    Objects.requireNonNull(op, "op");
    Objects.requireNonNull(right, "right");
  }

  @Override
  public String toSql() {
    // Left-associative: a right operand of the same strength needs parentheses, a left one not.
    String l = left.precedence() < precedence() ? "(" + left.toSql() + ")" : left.toSql();
    String r = right.precedence() <= precedence() ? "(" + right.toSql() + ")" : right.toSql();
    return l + " " + op.sql() + " " + r;
  }

  @Override
  public int precedence() {
    return op.precedence() * 10;
  }

  @Override
  public String toString() {
    return toSql();
  }
}
