package dev.lancelot.engine.expr;

/** A binary arithmetic operator; {@code * / %} bind tighter than {@code + -}. */
public enum ArithmeticOp {
  ADD("+", 1),
  SUBTRACT("-", 1),
  MULTIPLY("*", 2),
  DIVIDE("/", 2),
  MODULO("%", 2);

  private final String sql;
  private final int precedence;

  ArithmeticOp(String sql, int precedence) {
    this.sql = sql;
    this.precedence = precedence;
  }

  public String sql() {
    return sql;
  }

  /** 1 for {@code + -}, 2 for {@code * / %}. */
  public int precedence() {
    return precedence;
  }
}
