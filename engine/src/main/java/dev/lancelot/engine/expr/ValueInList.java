package dev.lancelot.engine.expr;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * {@code value [NOT] IN (item, ...)} where the value or an item is not a plain column or literal
 * ({@code id % 7 IN (1, 2)}, {@code id IN (tenant_id, 5)}). Same semantics as {@link InList}: true
 * if the value equals an item, else unknown if any of them is NULL, else false.
 */
public record ValueInList(Expr value, List<Expr> items, boolean negated) implements Predicate {
  public ValueInList {
    Objects.requireNonNull(value, "value");
    items = List.copyOf(items);
    if (items.isEmpty()) {
      throw new IllegalArgumentException("IN needs at least one item");
    }
    if (value instanceof Column && items.stream().allMatch(i -> i instanceof Literal)) {
      throw new IllegalArgumentException(
          "a column IN literals is an InList; use " + "Predicates.in(value, items, negated)");
    }
  }

  @Override
  public String toSql() {
    String list = items.stream().map(Expr::toSql).collect(Collectors.joining(", "));
    return value.toSql() + (negated ? " NOT IN (" : " IN (") + list + ")";
  }

  @Override
  public String toString() {
    return toSql();
  }
}
