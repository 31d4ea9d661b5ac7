package dev.lancelot.engine.expr;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.Objects;

/**
 * A timestamp without time zone, {@code timestamp '2024-01-31 10:00:00.25'} in SQL, precise to the
 * nanosecond. As in Lance, it means wall-clock time: against a column without time zone it is
 * compared as UTC; against a column with a time zone it is read as local time in that zone.
 */
public record TimestampLiteral(LocalDateTime value) implements Literal {
  public TimestampLiteral {
    Objects.requireNonNull(value, "value");
  }

  /**
   * The literal that denotes {@code instant} when compared with a timestamp column whose Arrow time
   * zone is {@code zone} (use UTC for a column without time zone): its wall-clock time there.
   * Spark's {@code TimestampType} values are instants, for example.
   */
  public static TimestampLiteral of(Instant instant, ZoneId zone) {
    return new TimestampLiteral(LocalDateTime.ofInstant(instant, zone));
  }

  @Override
  public String toSql() {
    StringBuilder sb = new StringBuilder("timestamp '").append(value.toLocalDate()).append(' ');
    sb.append(
        String.format("%02d:%02d:%02d", value.getHour(), value.getMinute(), value.getSecond()));
    int nanos = value.getNano();
    if (nanos != 0) {
      String fraction = String.format("%09d", nanos);
      int end = fraction.length();
      while (fraction.charAt(end - 1) == '0') {
        end--;
      }
      sb.append('.').append(fraction, 0, end);
    }
    return sb.append('\'').toString();
  }

  @Override
  public String toString() {
    return toSql();
  }
}
