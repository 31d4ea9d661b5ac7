package dev.lancelot.engine.expr;

/** {@code true} or {@code false}. */
public record BooleanLiteral(boolean value) implements Literal {
  public static final BooleanLiteral TRUE = new BooleanLiteral(true);
  public static final BooleanLiteral FALSE = new BooleanLiteral(false);

  public static BooleanLiteral of(boolean value) {
    return value ? TRUE : FALSE;
  }

  @Override
  public String toSql() {
    return Boolean.toString(value);
  }

  @Override
  public String toString() {
    return toSql();
  }
}
