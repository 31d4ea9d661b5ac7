package dev.lancelot.engine;

/** A create found a dataset already at the location. */
public class DatasetAlreadyExistsException extends InvalidInputException {
  public DatasetAlreadyExistsException(String message) {
    super(message);
  }
}
