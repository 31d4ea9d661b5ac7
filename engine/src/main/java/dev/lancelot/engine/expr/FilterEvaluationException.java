package dev.lancelot.engine.expr;

import dev.lancelot.engine.InvalidInputException;

/**
 * A filter that fits its schema but cannot be evaluated on some row's values: an integer division
 * by zero, an overflowing integer division or {@code abs}, or a {@code CAST} of a value the target
 * type cannot hold. Lance fails on the same rows; the message names the filter, the expression and
 * the value.
 */
public class FilterEvaluationException extends InvalidInputException {
  public FilterEvaluationException(String message) {
    super(message);
  }
}
