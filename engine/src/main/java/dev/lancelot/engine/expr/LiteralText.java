package dev.lancelot.engine.expr;

import dev.lancelot.engine.internal.expr.parse.Token;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.util.Locale;

/** The text of {@link FilterParser}'s literals: numbers and {@code DATE/TIMESTAMP/DOUBLE '…'}. */
final class LiteralText {
  private static final DateTimeFormatter TIMESTAMP =
      new DateTimeFormatterBuilder()
          .append(DateTimeFormatter.ISO_LOCAL_DATE)
          .optionalStart()
          .appendLiteral(' ')
          .optionalEnd()
          .optionalStart()
          .appendLiteral('T')
          .optionalEnd()
          .appendValue(ChronoField.HOUR_OF_DAY, 2)
          .appendLiteral(':')
          .appendValue(ChronoField.MINUTE_OF_HOUR, 2)
          .optionalStart()
          .appendLiteral(':')
          .appendValue(ChronoField.SECOND_OF_MINUTE, 2)
          .optionalStart()
          .appendFraction(ChronoField.NANO_OF_SECOND, 1, 9, true)
          .optionalEnd()
          .optionalEnd()
          .toFormatter(Locale.ROOT);

  private LiteralText() {}

  static Literal typed(String filter, Token type, Token text) {
    String s = text.text().trim();
    try {
      if (type.is("DATE")) {
        return new DateLiteral(LocalDate.parse(s));
      } else if (type.is("TIMESTAMP")) {
        return new TimestampLiteral(LocalDateTime.parse(s, TIMESTAMP));
      }
      return new DoubleLiteral(parseDouble(s));
    } catch (DateTimeParseException | NumberFormatException e) {
      String form =
          type.is("DATE")
              ? "'YYYY-MM-DD'"
              : type.is("TIMESTAMP")
                  ? "'YYYY-MM-DD HH:MM:SS[.fraction]' (no time zone)"
                  : "a number, 'NaN', 'Infinity' or '-Infinity'";
      throw new FilterParseException(
          filter,
          text.position(),
          "expected " + form + " in the " + type.text().toLowerCase(Locale.ROOT) + " literal");
    }
  }

  private static double parseDouble(String s) {
    String lower = s.toLowerCase(Locale.ROOT);
    String unsigned = lower.startsWith("-") || lower.startsWith("+") ? lower.substring(1) : lower;
    boolean negative = lower.startsWith("-");
    if (unsigned.equals("nan")) {
      return Double.NaN;
    } else if (unsigned.equals("inf") || unsigned.equals("infinity")) {
      return negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
    } else if (!s.matches("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?")) {
      throw new NumberFormatException(s);
    }
    return Double.parseDouble(s);
  }

  /** Integers that fit a long are {@link LongLiteral}s; anything else is a double (as Lance). */
  static Literal number(String text, boolean negative) {
    boolean integral = text.chars().allMatch(c -> c >= '0' && c <= '9');
    if (integral) {
      BigInteger value = new BigInteger(text);
      if (negative) {
        value = value.negate();
      }
      if (value.bitLength() < 64) {
        return new LongLiteral(value.longValue());
      }
    }
    double d = Double.parseDouble(text);
    return new DoubleLiteral(negative ? -d : d);
  }
}
