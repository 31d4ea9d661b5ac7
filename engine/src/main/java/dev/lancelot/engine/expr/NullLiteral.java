package dev.lancelot.engine.expr;

/** {@code NULL}: any comparison with it is unknown, so such a row is never selected. */
public record NullLiteral() implements Literal {
  public static final NullLiteral INSTANCE = new NullLiteral();

  @Override
  public String toSql() {
    return "NULL";
  }

  @Override
  public String toString() {
    return toSql();
  }
}
