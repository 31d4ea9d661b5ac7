package dev.lancelot.engine.internal.file;

/**
 * A file that is not a valid Lance file: truncated, wrong magic, offsets out of range, or encoded
 * data that contradicts its own description. Never retried, never partially answered.
 */
public final class CorruptFileException extends LanceFileException {
  public CorruptFileException(String message) {
    super(message);
  }

  public CorruptFileException(String message, Throwable cause) {
    super(message, cause);
  }
}
