package dev.lancelot.engine.expr;

import java.util.Objects;

/**
 * {@code value [NOT] LIKE|ILIKE 'pattern'} where the value is not a plain column or the match
 * ignores case ({@code ILIKE}: Unicode simple case folding, as Lance). A case-sensitive LIKE on a
 * column is a {@link Like}.
 */
public record ValueLike(Expr value, String pattern, boolean negated, boolean ignoreCase)
    implements Predicate {
  public ValueLike {
    Objects.requireNonNull(value, "value");
    Objects.requireNonNull(pattern, "pattern");
    if (value instanceof Column && !ignoreCase) {
      throw new IllegalArgumentException("a column LIKE a pattern is a Like");
    }
  }

  @Override
  public String toSql() {
    String op = (negated ? " NOT " : " ") + (ignoreCase ? "ILIKE " : "LIKE ");
    return value.toSql() + op + SqlText.string(pattern);
  }

  @Override
  public String toString() {
    return toSql();
  }
}
