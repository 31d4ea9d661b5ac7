package dev.lancelot.engine.io;

/**
 * A put-if-absent whose outcome could not be established: the store failed while the file was being
 * published and kept failing while it was read back. The file may or may not exist; a caller must
 * not delete anything the file could refer to, and must look at the store before trying the
 * operation again.
 */
public class CommitOutcomeUnknownException extends StorageException {
  public CommitOutcomeUnknownException(String message, Throwable cause) {
    super(message, cause);
  }
}
