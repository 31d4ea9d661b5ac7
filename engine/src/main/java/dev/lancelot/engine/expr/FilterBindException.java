package dev.lancelot.engine.expr;

import dev.lancelot.engine.InvalidInputException;

/**
 * A filter that does not fit the schema it is applied to: an unknown column, or a literal or
 * operator the column's type does not support. The message names the column and the fix.
 */
public class FilterBindException extends InvalidInputException {
  public FilterBindException(String message) {
    super(message);
  }
}
