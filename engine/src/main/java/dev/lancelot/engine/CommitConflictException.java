package dev.lancelot.engine;

/** A concurrent commit made this operation impossible; retrying the whole operation may succeed. */
public class CommitConflictException extends LancelotException {
  public CommitConflictException(String message) {
    super(message);
  }
}
