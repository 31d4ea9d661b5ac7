package dev.lancelot.spark.parser;

import dev.lancelot.engine.InvalidInputException;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.internal.SQLConf;

/** SQL text made by lancelot's parser extension (D76): literals, names, procedure calls. */
public final class SqlText {
  private SqlText() {}

  /**
   * {@code value} as a Spark SQL string literal, with backslash escapes; with {@code
   * spark.sql.parser.escapedStringLiterals} set Spark reads no escapes, so a value holding a quote
   * or a backslash is refused rather than passed on changed.
   */
  public static String string(String value) {
    boolean special = value.indexOf('\'') >= 0 || value.indexOf('\\') >= 0;
    if (special && SQLConf.get().escapedStringLiterals()) {
      throw new InvalidInputException(
          "Cannot pass the name "
              + value
              + " to a lance procedure: it holds a quote or a backslash, which a string literal"
              + " cannot hold while spark.sql.parser.escapedStringLiterals is true.");
    }
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }

  /** {@code name} as a back-quoted identifier. */
  public static String identifier(String name) {
    return "`" + name.replace("`", "``") + "`";
  }

  /** The {@code CALL} statement of {@code call}, for a line whose Spark parses {@code CALL}. */
  public static String call(ProcedureCall call) {
    List<String> parts = new ArrayList<>();
    call.nameParts().forEach(p -> parts.add(identifier(p)));
    List<String> args = new ArrayList<>();
    for (ProcedureCall.Argument a : call.arguments()) {
      args.add(a.named() ? identifier(a.name()) + " => " + a.sql() : a.sql());
    }
    return "CALL " + String.join(".", parts) + "(" + String.join(", ", args) + ")";
  }
}
