package dev.lancelot.engine.internal.file;

import dev.lancelot.engine.LancelotException;

/** Base of errors about one Lance data file; the message names the file. */
public class LanceFileException extends LancelotException {
  public LanceFileException(String message) {
    super(message);
  }

  public LanceFileException(String message, Throwable cause) {
    super(message, cause);
  }
}
