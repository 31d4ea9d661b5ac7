package dev.lancelot.engine.expr;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * {@code column [NOT] IN (v1, v2, ...)} with SQL semantics: true when the value equals one of the
 * literals; otherwise unknown if the list holds a NULL (or the value is NULL), else false. So
 * {@code x NOT IN (1, NULL)} never selects a row. The list is never empty.
 */
public record InList(Column column, List<Literal> values, boolean negated) implements Predicate {
  public InList {
    Objects.requireNonNull(column, "column");
    values = List.copyOf(values);
    if (values.isEmpty()) {
      throw new IllegalArgumentException(
          "IN needs at least one value; "
              + "Predicates.in(...) turns an empty list into a constant");
    }
  }

  @Override
  public String toSql() {
    String list = values.stream().map(Literal::toSql).collect(Collectors.joining(", "));
    return column.toSql() + (negated ? " NOT IN (" : " IN (") + list + ")";
  }

  @Override
  public String toString() {
    return toSql();
  }
}
