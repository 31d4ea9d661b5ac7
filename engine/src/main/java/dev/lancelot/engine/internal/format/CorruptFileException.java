package dev.lancelot.engine.internal.format;

import dev.lancelot.engine.LancelotException;

/** A file that is truncated, has a bad magic number or cannot be decoded. Names the file. */
public class CorruptFileException extends LancelotException {
  public CorruptFileException(String location, String reason) {
    super(
        "Cannot read "
            + location
            + ": "
            + reason
            + ". The file is corrupt or truncated; restore it or open an earlier version.");
  }

  public CorruptFileException(String location, String reason, Throwable cause) {
    super(
        "Cannot read "
            + location
            + ": "
            + reason
            + ". The file is corrupt or truncated; restore it or open an earlier version.",
        cause);
  }
}
