package dev.lancelot.engine.expr;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Containment tests on a list column, with DataFusion's names and meaning: {@code
 * array_has_any(tags, ['a', 'b'])} (some value is an element), {@code array_has_all(tags, ['a',
 * 'b'])} (every value is an element), {@code array_contains(tags, 'a')} and its alias {@code
 * array_has(tags, 'a')} (the value is an element). NULL elements never match; a NULL list gives
 * NULL. The values are non-NULL literals of the element type.
 */
public record ArrayContains(Column column, List<Literal> values, Mode mode) implements Predicate {
  /** The function, as written. */
  public enum Mode {
    ANY("array_has_any"),
    ALL("array_has_all"),
    CONTAINS("array_contains"),
    HAS("array_has");

    private final String sql;

    Mode(String sql) {
      this.sql = sql;
    }

    public String sql() {
      return sql;
    }

    /** Whether the second argument is a list of values ({@code [..]}) rather than one value. */
    public boolean takesList() {
      return this == ANY || this == ALL;
    }

    /** The function called {@code name} (any case), or null. */
    public static Mode named(String name) {
      for (Mode m : values()) {
        if (m.sql.equals(name.toLowerCase(Locale.ROOT))) {
          return m;
        }
      }
      return null;
    }
  }

  public ArrayContains {
    Objects.requireNonNull(column, "column");
    Objects.requireNonNull(mode, "mode");
    values = List.copyOf(values);
    if (values.isEmpty()) {
      throw new IllegalArgumentException(mode.sql() + " needs at least one value");
    }
    if (!mode.takesList() && values.size() != 1) {
      throw new IllegalArgumentException(mode.sql() + " takes one value, got " + values.size());
    }
    for (Literal v : values) {
      if (v instanceof NullLiteral) {
        throw new IllegalArgumentException(mode.sql() + " cannot search for NULL");
      }
    }
  }

  /** Whether a list must hold every value (else some value). */
  public boolean all() {
    return mode == Mode.ALL;
  }

  @Override
  public String toSql() {
    String args =
        mode.takesList()
            ? values.stream().map(Literal::toSql).collect(Collectors.joining(", ", "[", "]"))
            : values.get(0).toSql();
    return mode.sql() + "(" + column.toSql() + ", " + args + ")";
  }

  @Override
  public String toString() {
    return toSql();
  }
}
