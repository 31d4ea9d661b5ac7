package dev.lancelot.engine.internal.expr.eval;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * A literal as an exact rational {@code numerator / denominator} (denominator &gt; 0), or an
 * infinity ({@code infinity} = -1 or +1). Lets a comparison of an integer-valued column with any
 * literal be decided exactly, e.g. {@code int_col > 2.5} is {@code int_col >= 3}.
 */
record ExactNumber(int infinity, BigInteger numerator, BigInteger denominator) {
  static final ExactNumber PLUS_INFINITY = new ExactNumber(1, null, null);
  static final ExactNumber MINUS_INFINITY = new ExactNumber(-1, null, null);

  static ExactNumber of(long value) {
    return ratio(BigInteger.valueOf(value), BigInteger.ONE);
  }

  static ExactNumber ratio(BigInteger numerator, BigInteger denominator) {
    return new ExactNumber(0, numerator, denominator);
  }

  /** NaN sorts above +inf in Lance's total order, so against integers it acts as +inf. */
  static ExactNumber of(double value) {
    if (Double.isNaN(value) || value == Double.POSITIVE_INFINITY) {
      return PLUS_INFINITY;
    } else if (value == Double.NEGATIVE_INFINITY) {
      return MINUS_INFINITY;
    }
    BigDecimal exact = new BigDecimal(value);
    if (exact.scale() <= 0) {
      return ratio(exact.toBigIntegerExact(), BigInteger.ONE);
    }
    return ratio(exact.unscaledValue(), BigInteger.TEN.pow(exact.scale()));
  }

  boolean isFinite() {
    return infinity == 0;
  }

  /** Largest integer &lt;= this (finite only). */
  BigInteger floor() {
    BigInteger[] qr = numerator.divideAndRemainder(denominator);
    return qr[1].signum() < 0 ? qr[0].subtract(BigInteger.ONE) : qr[0];
  }

  /** Smallest integer &gt;= this (finite only). */
  BigInteger ceil() {
    BigInteger[] qr = numerator.divideAndRemainder(denominator);
    return qr[1].signum() > 0 ? qr[0].add(BigInteger.ONE) : qr[0];
  }

  boolean isInteger() {
    return isFinite() && numerator.mod(denominator).signum() == 0;
  }
}
