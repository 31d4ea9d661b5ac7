package dev.lancelot.engine.expr;

import java.util.Locale;

/**
 * The functions filters may call, with Lance's (DataFusion's) names and meaning. Aliases are
 * separate constants so that {@code toSql()} renders a call the way it was written.
 */
public enum FilterFunction {
  /** {@code lower(string)}: Unicode lower case. */
  LOWER(1),
  /** {@code upper(string)}: Unicode upper case. */
  UPPER(1),
  /** {@code starts_with(string, prefix)}: bool. */
  STARTS_WITH(2),
  /** {@code ends_with(string, suffix)}: bool. */
  ENDS_WITH(2),
  /** {@code contains(string, part)}: bool. */
  CONTAINS(2),
  /** {@code length(string)}: number of characters (code points). */
  LENGTH(1),
  CHAR_LENGTH(1),
  CHARACTER_LENGTH(1),
  /** {@code octet_length(string)}: number of UTF-8 bytes. */
  OCTET_LENGTH(1),
  /** {@code abs(number)}: absolute value, same type. */
  ABS(1);

  private final int arity;

  FilterFunction(int arity) {
    this.arity = arity;
  }

  public int arity() {
    return arity;
  }

  public String sql() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The function called {@code name} (any case), or null. */
  public static FilterFunction named(String name) {
    for (FilterFunction f : values()) {
      if (f.name().equalsIgnoreCase(name)) {
        return f;
      }
    }
    return null;
  }
}
