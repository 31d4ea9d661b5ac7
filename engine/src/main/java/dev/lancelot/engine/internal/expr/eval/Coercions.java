package dev.lancelot.engine.internal.expr.eval;

import dev.lancelot.engine.expr.DateLiteral;
import dev.lancelot.engine.expr.DoubleLiteral;
import dev.lancelot.engine.expr.FilterBindException;
import dev.lancelot.engine.expr.Literal;
import dev.lancelot.engine.expr.LongLiteral;
import dev.lancelot.engine.expr.TimestampLiteral;
import java.math.BigInteger;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** Conversion of literals to the values of numeric and temporal columns. */
final class Coercions {
  private Coercions() {}

  /** Builds the type-mismatch error for a column and literal. */
  interface Mismatch {
    FilterBindException of(BoundColumn column, Literal literal);
  }

  private static final BigInteger MICROS_PER_SECOND = BigInteger.valueOf(1_000_000L);
  private static final BigInteger NANOS_PER_MICRO = BigInteger.valueOf(1000L);
  private static final BigInteger NANOS_PER_DAY = BigInteger.valueOf(86_400_000_000_000L);

  static boolean isNumber(Literal lit) {
    return lit instanceof LongLiteral || lit instanceof DoubleLiteral;
  }

  static double toDouble(Literal lit) {
    return lit instanceof LongLiteral l ? (double) l.value() : ((DoubleLiteral) lit).value();
  }

  /** Rounded to nearest like Rust's {@code as f32}, which Lance applies to such literals. */
  static float toFloat(Literal lit) {
    return lit instanceof LongLiteral l ? (float) l.value() : (float) ((DoubleLiteral) lit).value();
  }

  /** A number literal, exactly. */
  static ExactNumber number(BoundColumn c, Literal lit, Mismatch mismatch) {
    if (lit instanceof LongLiteral l) {
      return ExactNumber.of(l.value());
    } else if (lit instanceof DoubleLiteral d) {
      return ExactNumber.of(d.value());
    }
    throw mismatch.of(c, lit);
  }

  /**
   * A date or timestamp literal in the units of a date or timestamp column, as Lance 7 compares
   * them (verified with lance-core):
   *
   * <ul>
   *   <li>a date means midnight UTC;
   *   <li>a timestamp literal is microsecond-precise: finer digits of its fraction are dropped. It
   *       is UTC for a column without time zone, local time in the column's zone otherwise;
   *   <li>against a timestamp column the literal is cast to the column's unit, truncating toward
   *       zero ({@code ts_s = timestamp '... 10:00:00.5'} matches 10:00:00);
   *   <li>against a date column the dates are compared as midnight timestamps, exactly.
   * </ul>
   */
  static ExactNumber temporal(BoundColumn c, Literal lit, Mismatch mismatch) {
    if (lit instanceof DateLiteral d) {
      BigInteger nanos = BigInteger.valueOf(d.value().toEpochDay()).multiply(NANOS_PER_DAY);
      return ExactNumber.ratio(nanos, unitNanos(c));
    }
    if (!(lit instanceof TimestampLiteral t)) {
      throw mismatch.of(c, lit);
    }
    LocalDateTime wallClock = t.value().truncatedTo(ChronoUnit.MICROS);
    Instant instant = wallClock.atZone(zone(c)).toInstant();
    BigInteger micros =
        BigInteger.valueOf(instant.getEpochSecond())
            .multiply(MICROS_PER_SECOND)
            .add(BigInteger.valueOf(instant.getNano() / 1000));
    BigInteger nanos = micros.multiply(NANOS_PER_MICRO);
    if (c.kind() != ColumnKind.TIMESTAMP) {
      return ExactNumber.ratio(nanos, unitNanos(c));
    }
    // Exact for us and ns columns; for s and ms BigInteger.divide truncates toward zero, like
    // Arrow's cast of the literal to the column's unit.
    return ExactNumber.ratio(nanos.divide(unitNanos(c)), BigInteger.ONE);
  }

  private static ZoneId zone(BoundColumn c) {
    if (!(c.field().getType() instanceof ArrowType.Timestamp ts) || ts.getTimezone() == null) {
      return ZoneOffset.UTC;
    }
    try {
      return ZoneId.of(ts.getTimezone());
    } catch (DateTimeException e) {
      throw new FilterBindException(
          "Cannot apply filter on column "
              + c.displayName()
              + ": its time zone \""
              + ts.getTimezone()
              + "\" is not a zone id this engine knows ("
              + e.getMessage()
              + "). Use a column without time zone or with an IANA zone id.");
    }
  }

  private static BigInteger unitNanos(BoundColumn c) {
    ArrowType type = c.field().getType();
    if (type instanceof ArrowType.Date d) {
      return d.getUnit() == org.apache.arrow.vector.types.DateUnit.DAY
          ? NANOS_PER_DAY
          : BigInteger.valueOf(1_000_000L);
    }
    return BigInteger.valueOf(
        switch (((ArrowType.Timestamp) type).getUnit()) {
          case SECOND -> 1_000_000_000L;
          case MILLISECOND -> 1_000_000L;
          case MICROSECOND -> 1_000L;
          case NANOSECOND -> 1L;
        });
  }
}
