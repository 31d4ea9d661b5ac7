package dev.lancelot.engine.expr;

import java.util.Objects;

/** A string literal, {@code 'it''s'} in SQL (quotes doubled, no backslash escapes). */
public record StringLiteral(String value) implements Literal {
  public StringLiteral {
    Objects.requireNonNull(value, "value");
  }

  @Override
  public String toSql() {
    return SqlText.string(value);
  }

  @Override
  public String toString() {
    return toSql();
  }
}
