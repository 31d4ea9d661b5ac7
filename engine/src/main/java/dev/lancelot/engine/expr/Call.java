package dev.lancelot.engine.expr;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/** A function call, e.g. {@code lower(name)} or {@code starts_with(name, 'a')}. */
public record Call(FilterFunction function, List<Expr> arguments) implements Expr {
  public Call {
    Objects.requireNonNull(function, "function");
    arguments = List.copyOf(arguments);
    if (arguments.size() != function.arity()) {
      throw new IllegalArgumentException(
          function.sql() + " takes " + function.arity() + " argument(s), got " + arguments.size());
    }
  }

  @Override
  public String toSql() {
    return function.sql()
        + "("
        + arguments.stream().map(Expr::toSql).collect(Collectors.joining(", "))
        + ")";
  }

  @Override
  public String toString() {
    return toSql();
  }
}
