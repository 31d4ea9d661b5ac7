package dev.lancelot.spark.recall;

import dev.lancelot.engine.InvalidInputException;

/**
 * Input a recall evaluation cannot run with (a missing query set, a query column of the wrong
 * dimension, a filter that does not parse…), found before anything is written.
 */
public class RecallInputException extends InvalidInputException {
  public RecallInputException(String message) {
    super(message);
  }

  public RecallInputException(String message, Throwable cause) {
    super(message, cause);
  }
}
