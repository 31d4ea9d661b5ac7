package dev.lancelot.engine.expr;

/** An integer literal, e.g. {@code 42} or {@code -7}. */
public record LongLiteral(long value) implements Literal {
  @Override
  public String toSql() {
    return Long.toString(value);
  }

  @Override
  public String toString() {
    return toSql();
  }
}
