package dev.lancelot.engine.internal.file;

/**
 * Options of {@link LanceFileWriter}.
 *
 * @param maxPageBytes target size of a page of one column (values bytes before encoding); Lance 7
 *     flushes a column's page at about 8 MiB, which is the default
 * @param version file format version to write: {@link FileVersion#V2_1} (the default) or {@link
 *     FileVersion#V2_2}
 */
public record WriterOptions(long maxPageBytes, FileVersion version) {
  public static final long DEFAULT_MAX_PAGE_BYTES = 8L * 1024 * 1024;

  public WriterOptions {
    if (maxPageBytes <= 0) {
      throw new IllegalArgumentException("maxPageBytes must be positive, got " + maxPageBytes);
    }
    if (!FileVersion.V2_1.equals(version) && !FileVersion.V2_2.equals(version)) {
      throw new IllegalArgumentException(
          "Cannot write Lance file format " + version + ": the writer writes 2.1 and 2.2");
    }
  }

  public static WriterOptions defaults() {
    return new WriterOptions(DEFAULT_MAX_PAGE_BYTES, FileVersion.V2_1);
  }

  public WriterOptions withMaxPageBytes(long bytes) {
    return new WriterOptions(bytes, version);
  }

  public WriterOptions withVersion(FileVersion v) {
    return new WriterOptions(maxPageBytes, v);
  }
}
