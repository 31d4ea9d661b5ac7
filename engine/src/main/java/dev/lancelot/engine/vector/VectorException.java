package dev.lancelot.engine.vector;

import dev.lancelot.engine.InvalidInputException;

/**
 * A vector operation or index build was given input a user can fix: a bad metric name, a metric
 * that does not fit the element type, a dimension that does not divide, too few rows to train,
 * non-finite vectors, or inconsistent search parameters. Messages follow {@code "Cannot <action>:
 * <reason>. <how to fix>"}.
 */
public class VectorException extends InvalidInputException {
  public VectorException(String message) {
    super(message);
  }
}
