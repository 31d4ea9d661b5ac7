package dev.lancelot.engine.expr;

/**
 * A floating-point literal, e.g. {@code 1.5}, {@code -2.0E-3}. Every NaN is the canonical NaN
 * ({@link Double#NaN}). Non-finite values render as typed literals ({@code double 'NaN'}, {@code
 * double 'Infinity'}, {@code double '-Infinity'}), which Lance also accepts.
 */
public record DoubleLiteral(double value) implements Literal {
  public DoubleLiteral {
    if (Double.isNaN(value)) {
      value = Double.NaN;
    }
  }

  @Override
  public String toSql() {
    if (Double.isNaN(value)) {
      return "double 'NaN'";
    } else if (Double.isInfinite(value)) {
      return value > 0 ? "double 'Infinity'" : "double '-Infinity'";
    }
    // Double.toString always contains '.' or 'E', so the text reads back as a double.
    return Double.toString(value);
  }

  @Override
  public String toString() {
    return toSql();
  }
}
