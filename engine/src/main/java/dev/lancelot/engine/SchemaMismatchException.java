package dev.lancelot.engine;

/** Data written to a dataset does not match the dataset's schema. */
public class SchemaMismatchException extends InvalidInputException {
  public SchemaMismatchException(String message) {
    super(message);
  }
}
