package dev.lancelot.engine;

/** No dataset (or no such version) at a location. */
public class DatasetNotFoundException extends InvalidInputException {
  public DatasetNotFoundException(String message) {
    super(message);
  }
}
