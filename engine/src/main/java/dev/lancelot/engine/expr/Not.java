package dev.lancelot.engine.expr;

import java.util.Objects;

/** Negation. {@code NOT unknown} is unknown, so {@code NOT (x = 1)} does not select NULL x. */
public record Not(Predicate child) implements Predicate {
  public Not {
    Objects.requireNonNull(child, "child");
  }

  @Override
  public String toSql() {
    boolean group = child instanceof And || child instanceof Or;
    return group ? "NOT (" + child.toSql() + ")" : "NOT " + child.toSql();
  }

  @Override
  public String toString() {
    return toSql();
  }
}
