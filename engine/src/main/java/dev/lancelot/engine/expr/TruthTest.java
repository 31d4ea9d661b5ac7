package dev.lancelot.engine.expr;

import java.util.Objects;

/**
 * {@code condition IS [NOT] TRUE|FALSE|NULL}: tests the three-valued outcome of a condition and is
 * never unknown itself. {@code flag IS NOT TRUE} selects false and NULL flags; {@code (x > 5) IS
 * NULL} selects the rows where {@code x > 5} is unknown.
 */
public record TruthTest(Predicate condition, Truth truth, boolean negated) implements Predicate {
  /** The outcome tested for. */
  public enum Truth {
    TRUE,
    FALSE,
    NULL
  }

  public TruthTest {
    Objects.requireNonNull(condition, "condition");
    Objects.requireNonNull(truth, "truth");
    if (truth == Truth.NULL
        && (condition instanceof BooleanColumn
            || condition instanceof BooleanValue
            || condition instanceof Constant)) {
      throw new IllegalArgumentException("a value IS NULL is an IsNull or ValueIsNull");
    }
  }

  @Override
  public String toSql() {
    boolean bare =
        condition instanceof BooleanColumn
            || condition instanceof BooleanValue
            || condition instanceof Constant;
    String c = bare ? condition.toSql() : "(" + condition.toSql() + ")";
    return c + (negated ? " IS NOT " : " IS ") + truth.name();
  }

  @Override
  public String toString() {
    return toSql();
  }
}
