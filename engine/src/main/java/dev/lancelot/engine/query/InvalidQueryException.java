package dev.lancelot.engine.query;

import dev.lancelot.engine.InvalidInputException;

/** A vector query whose parameters are invalid (SPEC Q1); raised before any data is read. */
public class InvalidQueryException extends InvalidInputException {
  public InvalidQueryException(String message) {
    super(message);
  }
}
