package dev.lancelot.engine.expr;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalDateTime;

/**
 * A constant in a filter. Literals are untyped with respect to columns: binding ({@link
 * BoundPredicate#bind}) decides how a literal compares with a column of a given type.
 */
public sealed interface Literal extends Expr
    permits LongLiteral,
        DoubleLiteral,
        StringLiteral,
        BooleanLiteral,
        NullLiteral,
        DateLiteral,
        TimestampLiteral,
        BinaryLiteral {

  /** The literal as filter SQL that {@link FilterParser} reads back to an equal literal. */
  @Override
  String toSql();

  /**
   * The literal for a Java value: {@code Byte/Short/Integer/Long} become {@link LongLiteral},
   * {@code Float/Double} {@link DoubleLiteral}, {@code String} {@link StringLiteral}, {@code
   * Boolean} {@link BooleanLiteral}, {@code null} {@link NullLiteral}, {@code LocalDate} {@link
   * DateLiteral}, {@code LocalDateTime} {@link TimestampLiteral}, {@code byte[]} {@link
   * BinaryLiteral}; a {@code Literal} is returned as is.
   *
   * @throws IllegalArgumentException for any other type (also {@code Instant}: see {@link
   *     TimestampLiteral#of(java.time.Instant, java.time.ZoneId)}), or an integral {@code
   *     BigInteger} / {@code BigDecimal} outside the long range (filter SQL has no exact literal
   *     for it)
   */
  static Literal of(Object value) {
    if (value == null) {
      return NullLiteral.INSTANCE;
    } else if (value instanceof Literal literal) {
      return literal;
    } else if (value instanceof Byte
        || value instanceof Short
        || value instanceof Integer
        || value instanceof Long) {
      return new LongLiteral(((Number) value).longValue());
    } else if (value instanceof Float || value instanceof Double) {
      return new DoubleLiteral(((Number) value).doubleValue());
    } else if (value instanceof BigInteger big) {
      return new LongLiteral(exactLong(big, value));
    } else if (value instanceof BigDecimal decimal) {
      return decimal.stripTrailingZeros().scale() <= 0
          ? new LongLiteral(exactLong(decimal.toBigInteger(), value))
          : new DoubleLiteral(decimal.doubleValue());
    } else if (value instanceof String s) {
      return new StringLiteral(s);
    } else if (value instanceof Boolean b) {
      return BooleanLiteral.of(b);
    } else if (value instanceof LocalDate date) {
      return new DateLiteral(date);
    } else if (value instanceof LocalDateTime timestamp) {
      return new TimestampLiteral(timestamp);
    } else if (value instanceof byte[] bytes) {
      return new BinaryLiteral(bytes);
    } else if (value instanceof java.time.Instant) {
      throw new IllegalArgumentException(
          "an Instant ("
              + value
              + ") needs the time zone of the"
              + " column it is compared with; use TimestampLiteral.of(instant, zone)");
    }
    throw new IllegalArgumentException(
        "no filter literal for a value of type " + value.getClass().getName() + ": " + value);
  }

  private static long exactLong(BigInteger value, Object original) {
    if (value.bitLength() >= 64) {
      throw new IllegalArgumentException(
          "no filter literal for " + original + ": integers must fit a signed 64-bit long");
    }
    return value.longValue();
  }
}
