package dev.lancelot.engine.expr;

import java.util.List;

/**
 * A reference to a top-level column, or to a field nested in struct columns: the path {@code ["a",
 * "b"]} is field {@code b} of struct column {@code a}, written {@code a.b} in SQL. A top-level
 * column whose name contains a dot is the one-element path {@code ["a.b"]}, written {@code `a.b`}.
 */
public record Column(List<String> path) implements Expr {
  public Column {
    path = List.copyOf(path);
    if (path.isEmpty()) {
      throw new IllegalArgumentException("a column path needs at least one name");
    }
    for (String part : path) {
      if (part.isEmpty()) {
        throw new IllegalArgumentException("column names cannot be empty: " + path);
      }
    }
  }

  /** The top-level column {@code name}, taken verbatim (a dot in it does not mean nesting). */
  public static Column named(String name) {
    return new Column(List.of(name));
  }

  /** A column path: {@code of("a", "b")} is field {@code b} of struct column {@code a}. */
  public static Column of(String... path) {
    return new Column(List.of(path));
  }

  /** Name of the top-level column this path starts at. */
  public String topLevelName() {
    return path.get(0);
  }

  public boolean isNested() {
    return path.size() > 1;
  }

  /** The path as filter SQL: each part bare when possible, otherwise in backquotes. */
  @Override
  public String toSql() {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < path.size(); i++) {
      if (i > 0) {
        sb.append('.');
      }
      sb.append(SqlText.identifier(path.get(i)));
    }
    return sb.toString();
  }

  @Override
  public String toString() {
    return toSql();
  }
}
