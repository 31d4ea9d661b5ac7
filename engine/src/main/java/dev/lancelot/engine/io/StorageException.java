package dev.lancelot.engine.io;

import dev.lancelot.engine.LancelotException;

/** An I/O failure against the underlying store; the message names the path. */
public class StorageException extends LancelotException {
  public StorageException(String message, Throwable cause) {
    super(message, cause);
  }

  public StorageException(String message) {
    super(message);
  }
}
