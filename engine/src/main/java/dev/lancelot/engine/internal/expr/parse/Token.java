package dev.lancelot.engine.internal.expr.parse;

/**
 * A token of filter SQL.
 *
 * @param type its category
 * @param text the value: a name or string with quoting removed, a number's digits, hex digits, or
 *     the operator as written
 * @param position 0-based index of its first character in the filter
 */
public record Token(TokenType type, String text, int position) {
  /** Whether this is the unquoted word {@code keyword}, ignoring case. */
  public boolean is(String keyword) {
    return type == TokenType.WORD && text.equalsIgnoreCase(keyword);
  }

  /** How to show this token in an error message. */
  public String describe() {
    return switch (type) {
      case END -> "end of filter";
      case STRING -> "'" + text + "'";
      case QUOTED_NAME -> "`" + text + "`";
      case HEX -> "X'" + text + "'";
      default -> "\"" + text + "\"";
    };
  }
}
