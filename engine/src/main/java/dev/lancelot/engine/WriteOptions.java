package dev.lancelot.engine;

/**
 * Options of a write: the mode, how many rows go into one data file (and fragment) at most, and the
 * Lance file format version of new data files.
 *
 * @param mode create, append or overwrite
 * @param maxRowsPerFile rows per fragment at most (Lance's default: 1,048,576)
 * @param dataStorageVersion file format of new data files; only "2.1" is written
 * @param enableStableRowIds when the write creates the dataset, give it stable row ids (Lance's
 *     {@code enable_stable_row_ids}: reader and writer feature flag 2, each row keeps its id when
 *     rows move); on an existing dataset it must be unset or match the dataset
 */
public record WriteOptions(
    WriteMode mode, int maxRowsPerFile, String dataStorageVersion, boolean enableStableRowIds) {
  public static final int DEFAULT_MAX_ROWS_PER_FILE = 1024 * 1024;

  public WriteOptions {
    if (mode == null) {
      throw new IllegalArgumentException("Write mode must not be null");
    }
    if (maxRowsPerFile < 1) {
      throw new InvalidInputException(
          "Cannot write: maxRowsPerFile must be at least 1, got " + maxRowsPerFile);
    }
    if (!"2.1".equals(dataStorageVersion)) {
      throw new InvalidInputException(
          "Cannot write Lance file format "
              + dataStorageVersion
              + ": lancelot writes format 2.1 (Lance 7's default). Use dataStorageVersion \"2.1\".");
    }
  }

  public static WriteOptions of(WriteMode mode) {
    return new WriteOptions(mode, DEFAULT_MAX_ROWS_PER_FILE, "2.1", false);
  }

  public WriteOptions withMaxRowsPerFile(int rows) {
    return new WriteOptions(mode, rows, dataStorageVersion, enableStableRowIds);
  }

  public WriteOptions withMode(WriteMode newMode) {
    return new WriteOptions(newMode, maxRowsPerFile, dataStorageVersion, enableStableRowIds);
  }

  /**
   * These options, creating the dataset with stable row ids or not (see {@link
   * #enableStableRowIds()}).
   */
  public WriteOptions enableStableRowIds(boolean enable) {
    return new WriteOptions(mode, maxRowsPerFile, dataStorageVersion, enable);
  }
}
