package dev.lancelot.engine;

/** No dataset (or no such version) at a location. */
public class DatasetNotFoundException extends LancelotException {
  public DatasetNotFoundException(String message) {
    super(message);
  }
}
