package dev.lancelot.engine.internal.file;

/**
 * A valid Lance file that uses something lancelot cannot decode yet (a format version, a page
 * layout or a compressive encoding). The message names the file, column, page and feature.
 */
public final class UnsupportedFileFeatureException extends LanceFileException {
  public UnsupportedFileFeatureException(String message) {
    super(message);
  }

  public UnsupportedFileFeatureException(String message, Throwable cause) {
    super(message, cause);
  }
}
