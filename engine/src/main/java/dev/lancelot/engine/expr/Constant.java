package dev.lancelot.engine.expr;

/** {@code true} (selects every row) or {@code false} (selects none). */
public record Constant(boolean value) implements Predicate {
  public static final Constant TRUE = new Constant(true);
  public static final Constant FALSE = new Constant(false);

  public static Constant of(boolean value) {
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
