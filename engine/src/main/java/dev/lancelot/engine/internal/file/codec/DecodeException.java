package dev.lancelot.engine.internal.file.codec;

/**
 * Internal decoding failure, raised where the file name is not known. The file reader wraps it into
 * a {@link dev.lancelot.engine.internal.file.CorruptFileException} or {@link
 * dev.lancelot.engine.internal.file.UnsupportedFileFeatureException} naming file, column and page.
 */
public final class DecodeException extends RuntimeException {
  private final boolean unsupported;

  private DecodeException(String message, boolean unsupported, Throwable cause) {
    super(message, cause);
    this.unsupported = unsupported;
  }

  /** The data contradicts its description (truncated buffer, index out of range, ...). */
  public static DecodeException corrupt(String message) {
    return new DecodeException(message, false, null);
  }

  public static DecodeException corrupt(String message, Throwable cause) {
    return new DecodeException(message, false, cause);
  }

  /** A valid encoding this reader does not implement. */
  public static DecodeException unsupported(String message) {
    return new DecodeException(message, true, null);
  }

  public boolean isUnsupported() {
    return unsupported;
  }
}
