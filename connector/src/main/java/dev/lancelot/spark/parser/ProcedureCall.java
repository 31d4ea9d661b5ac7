package dev.lancelot.spark.parser;

import java.util.List;

/**
 * A procedure call as lancelot's parser extension reads it (D76): the procedure's name as written
 * ({@code lance.system.compact}, or {@code system.compact} in the current catalog) and its
 * arguments, positional ones first, each as the SQL text of its value expression.
 *
 * @param nameParts the parts of the procedure's name, unquoted
 * @param arguments the arguments in the order written
 */
public record ProcedureCall(List<String> nameParts, List<Argument> arguments) {
  public ProcedureCall {
    nameParts = List.copyOf(nameParts);
    arguments = List.copyOf(arguments);
  }

  /**
   * One argument.
   *
   * @param name its parameter's name when written {@code name => value}, null when positional
   * @param sql the SQL text of its value, handed to Spark's expression parser
   */
  public record Argument(String name, String sql) {
    /** Whether it names its parameter. */
    public boolean named() {
      return name != null;
    }
  }
}
