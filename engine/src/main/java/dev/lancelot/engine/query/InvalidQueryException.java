package dev.lancelot.engine.query;

import dev.lancelot.engine.LancelotException;

/** A vector query whose parameters are invalid (SPEC Q1); raised before any data is read. */
public class InvalidQueryException extends LancelotException {
  public InvalidQueryException(String message) {
    super(message);
  }
}
