package dev.lancelot.engine;

import java.util.Locale;

/**
 * Options of a write: the mode, how many rows go into one data file (and fragment) at most, and the
 * Lance file format version of new data files.
 *
 * @param mode create, append or overwrite
 * @param maxRowsPerFile rows per fragment at most (Lance's default: 1,048,576)
 * @param dataStorageVersion file format of new data files (Lance's {@code data_storage_version}):
 *     {@code "2.1"}, {@code "2.2"}, {@code "stable"} (2.1, as Lance 7 resolves it) or {@code null}
 *     for the default — the dataset's own version when it exists (2.1 for a 2.0 dataset, which
 *     lancelot cannot write), 2.1 for a new dataset. An append always writes the dataset's version:
 *     naming another one is refused. See {@link #resolvedFor(String)}.
 * @param enableStableRowIds when the write creates the dataset, give it stable row ids (Lance's
 *     {@code enable_stable_row_ids}: reader and writer feature flag 2, each row keeps its id when
 *     rows move); on an existing dataset it must be unset or match the dataset
 * @param initialBases the base paths a create registers (Lance's {@code initial_bases}, ids 1, 2,
 *     ... in this order); only a write in mode {@link WriteMode#CREATE} may give them, as in Lance
 *     7, and {@code targetBase} may name one of them (decision D68)
 * @param targetBase the base path new data files go to (Lance's {@code target_bases}, one base):
 *     the name or path of a base the dataset's latest version registers, or {@code null} for the
 *     dataset root. Data files under a base that is a dataset root go to its {@code data/}
 *     directory, else directly under it, and record the base's id (decision D58). {@link
 *     Dataset#write} and the tasks of a distributed write (D62c) honour it; compaction and column
 *     backfills take theirs in {@link CompactionOptions#targetBase()} and {@link
 *     Dataset#addColumns(java.util.List, java.util.List, ColumnBackfill, String)} (D68).
 */
public record WriteOptions(
    WriteMode mode,
    int maxRowsPerFile,
    String dataStorageVersion,
    boolean enableStableRowIds,
    String targetBase,
    java.util.List<InitialBase> initialBases) {
  public static final int DEFAULT_MAX_ROWS_PER_FILE = 1024 * 1024;

  /** The file format version of new datasets when none is asked for. */
  public static final String DEFAULT_DATA_STORAGE_VERSION = "2.1";

  public WriteOptions {
    if (mode == null) {
      throw new IllegalArgumentException("Write mode must not be null");
    }
    if (maxRowsPerFile < 1) {
      throw new InvalidInputException(
          "Cannot write: maxRowsPerFile must be at least 1, got " + maxRowsPerFile);
    }
    dataStorageVersion = normalize(dataStorageVersion);
    initialBases = initialBases == null ? java.util.List.of() : java.util.List.copyOf(initialBases);
  }

  private static String normalize(String version) {
    if (version == null) {
      return null;
    }
    String v = version.trim().toLowerCase(Locale.ROOT);
    return switch (v) {
      case "2.1", "stable" -> "2.1";
      case "2.2" -> "2.2";
      default ->
          throw new InvalidInputException(
              "Cannot write Lance file format \""
                  + version
                  + "\": lancelot writes formats 2.1 and 2.2. Use data storage version \"2.1\""
                  + " (also \"stable\"), \"2.2\", or leave it unset.");
    };
  }

  public static WriteOptions of(WriteMode mode) {
    return new WriteOptions(mode, DEFAULT_MAX_ROWS_PER_FILE, null, false, null, null);
  }

  public WriteOptions withMaxRowsPerFile(int rows) {
    return new WriteOptions(
        mode, rows, dataStorageVersion, enableStableRowIds, targetBase, initialBases);
  }

  public WriteOptions withMode(WriteMode newMode) {
    return new WriteOptions(
        newMode, maxRowsPerFile, dataStorageVersion, enableStableRowIds, targetBase, initialBases);
  }

  /** These options writing file format {@code version} ({@code null}: the default). */
  public WriteOptions withDataStorageVersion(String version) {
    return new WriteOptions(
        mode, maxRowsPerFile, version, enableStableRowIds, targetBase, initialBases);
  }

  /**
   * These options, creating the dataset with stable row ids or not (see {@link
   * #enableStableRowIds()}).
   */
  public WriteOptions enableStableRowIds(boolean enable) {
    return new WriteOptions(
        mode, maxRowsPerFile, dataStorageVersion, enable, targetBase, initialBases);
  }

  /**
   * These options writing new data files to base {@code nameOrPath} (see {@link #targetBase()}).
   */
  public WriteOptions withTargetBase(String nameOrPath) {
    return new WriteOptions(
        mode, maxRowsPerFile, dataStorageVersion, enableStableRowIds, nameOrPath, initialBases);
  }

  /**
   * These options registering {@code bases} when they create the dataset (see {@link
   * #initialBases()}).
   */
  public WriteOptions withInitialBases(java.util.List<InitialBase> bases) {
    return new WriteOptions(
        mode, maxRowsPerFile, dataStorageVersion, enableStableRowIds, targetBase, bases);
  }

  /**
   * These options with the file format version a write to a dataset of data storage version {@code
   * existing} ({@code null}: no dataset yet) gives its new files: an append keeps the dataset's
   * version, a create or overwrite writes the version asked for, else the dataset's; a 2.0 dataset
   * gets 2.1 files (lancelot does not write 2.0; the dataset then mixes file versions). A
   * distributed write resolves once, on the coordinator, and gives the result to every task.
   *
   * @throws InvalidInputException an append asks for another version than the dataset's
   */
  public WriteOptions resolvedFor(String existing) {
    String own =
        existing == null
            ? DEFAULT_DATA_STORAGE_VERSION
            : existing.equals("2.2") ? "2.2" : DEFAULT_DATA_STORAGE_VERSION;
    if (existing != null && mode == WriteMode.APPEND) {
      if (dataStorageVersion != null && !dataStorageVersion.equals(own)) {
        throw new InvalidInputException(
            "Cannot append Lance "
                + dataStorageVersion
                + " files to a dataset of data storage version "
                + existing
                + ": appends keep the dataset's version"
                + (own.equals(existing) ? "" : " (lancelot writes " + own + " files into it)")
                + ". Leave the data storage version unset, or overwrite the dataset to change it.");
      }
      return withDataStorageVersion(own);
    }
    return withDataStorageVersion(dataStorageVersion == null ? own : dataStorageVersion);
  }
}
