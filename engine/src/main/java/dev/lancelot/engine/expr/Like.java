package dev.lancelot.engine.expr;

import java.util.Objects;

/**
 * {@code column [NOT] LIKE 'pattern'} on a string column: {@code %} matches any run of characters,
 * {@code _} exactly one character (code point), and a backslash makes the next character literal
 * ({@code \%}, {@code \_}, {@code \\}), as in Lance. Case-sensitive.
 */
public record Like(Column column, String pattern, boolean negated) implements Predicate {
  public Like {
    Objects.requireNonNull(column, "column");
    Objects.requireNonNull(pattern, "pattern");
  }

  @Override
  public String toSql() {
    return column.toSql() + (negated ? " NOT LIKE " : " LIKE ") + SqlText.string(pattern);
  }

  @Override
  public String toString() {
    return toSql();
  }
}
