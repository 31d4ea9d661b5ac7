package dev.lancelot.engine.table;

import dev.lancelot.engine.LancelotException;

/** A concurrent commit made this operation impossible; retrying the whole operation may succeed. */
public class CommitConflictException extends LancelotException {
  public CommitConflictException(String message) {
    super(message);
  }
}
