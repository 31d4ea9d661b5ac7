package dev.lancelot.engine.index.scalar;

import dev.lancelot.engine.LancelotException;

/**
 * A scalar index cannot be read: an index file that is missing, unreadable or corrupt (the message
 * names the file and says to rebuild the index). Bad build requests (an unknown or unsupported
 * column, a name already taken) are {@link dev.lancelot.engine.InvalidInputException}s.
 */
public class ScalarIndexException extends LancelotException {
  public ScalarIndexException(String message) {
    super(message);
  }

  public ScalarIndexException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * An index file the storage could not deliver (missing, shorter than recorded, or unreachable).
   */
  public static ScalarIndexException unreadable(
      String indexName, String location, Throwable cause) {
    return unreadable("BTree", indexName, location, cause);
  }

  /** As {@link #unreadable(String, String, Throwable)} for an index of kind {@code kind}. */
  public static ScalarIndexException unreadable(
      String kind, String indexName, String location, Throwable cause) {
    return new ScalarIndexException(
        "Cannot read "
            + kind
            + " index \""
            + indexName
            + "\" from "
            + location
            + ": "
            + cause.getMessage()
            + ". If the file is missing or damaged, rebuild the index (replace it) or drop it.",
        cause);
  }

  /** An index file that cannot be read or contradicts itself. */
  public static ScalarIndexException corrupt(
      String indexName, String location, String reason, Throwable cause) {
    return corrupt("BTree", indexName, location, reason, cause);
  }

  /** As {@link #corrupt(String, String, String, Throwable)} for an index of kind {@code kind}. */
  public static ScalarIndexException corrupt(
      String kind, String indexName, String location, String reason, Throwable cause) {
    return new ScalarIndexException(
        "Cannot read "
            + kind
            + " index \""
            + indexName
            + "\" from "
            + location
            + ": "
            + reason
            + ". The index file is corrupt or was not written by Lance; rebuild the index (replace it) or drop it.",
        cause);
  }

  /**
   * As {@link #corrupt(String, String, String, String, Throwable)}, naming the manifest that lists
   * the index ({@code listedIn}; null when unknown).
   */
  public static ScalarIndexException corrupt(
      String kind,
      String indexName,
      String location,
      String reason,
      String listedIn,
      Throwable cause) {
    return corrupt(
        kind,
        indexName,
        location,
        listedIn == null ? reason : reason + " (index listed in " + listedIn + ")",
        cause);
  }
}
