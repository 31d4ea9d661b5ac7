package dev.lancelot.engine.expr;

import java.util.Objects;

/**
 * {@code -value}: arithmetic negation. On integers it wraps ({@code -(-128)} of an int8 value is
 * -128), as Lance; on floats it flips the sign, so {@code -0.0} and NaN signs flip too. A negative
 * number literal is a {@link Literal}, not a negation.
 */
public record Negate(Expr value) implements Expr {
  public Negate {
    Objects.requireNonNull(value, "value");
  }

  @Override
  public String toSql() {
    boolean bare = value instanceof Column || value instanceof Cast || value instanceof Call;
    return bare ? "-" + value.toSql() : "-(" + value.toSql() + ")";
  }

  @Override
  public int precedence() {
    return 90;
  }

  @Override
  public String toString() {
    return toSql();
  }
}
