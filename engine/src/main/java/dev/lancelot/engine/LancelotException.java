package dev.lancelot.engine;

/**
 * Base of every error a user can act on. Messages follow the pattern {@code "Cannot <action>:
 * <reason>. <how to fix>"} and name the path, column or parameter involved. Broken internal
 * invariants are reported with {@link IllegalStateException} instead.
 */
public class LancelotException extends RuntimeException {
  public LancelotException(String message) {
    super(message);
  }

  public LancelotException(String message, Throwable cause) {
    super(message, cause);
  }
}
