package dev.lancelot.engine.expr;

import java.time.LocalDate;
import java.util.Objects;

/** A calendar date, {@code date '2024-01-31'} in SQL. */
public record DateLiteral(LocalDate value) implements Literal {
  public DateLiteral {
    Objects.requireNonNull(value, "value");
  }

  @Override
  public String toSql() {
    return "date " + SqlText.string(value.toString());
  }

  @Override
  public String toString() {
    return toSql();
  }
}
