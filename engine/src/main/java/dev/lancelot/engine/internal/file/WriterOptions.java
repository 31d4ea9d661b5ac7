package dev.lancelot.engine.internal.file;

/**
 * Options of {@link LanceFileWriter}.
 *
 * @param maxPageBytes target size of a page of one column (values bytes before encoding); Lance 7
 *     flushes a column's page at about 8 MiB, which is the default
 */
public record WriterOptions(long maxPageBytes) {
  public static final long DEFAULT_MAX_PAGE_BYTES = 8L * 1024 * 1024;

  public WriterOptions {
    if (maxPageBytes <= 0) {
      throw new IllegalArgumentException("maxPageBytes must be positive, got " + maxPageBytes);
    }
  }

  public static WriterOptions defaults() {
    return new WriterOptions(DEFAULT_MAX_PAGE_BYTES);
  }

  public WriterOptions withMaxPageBytes(long bytes) {
    return new WriterOptions(bytes);
  }
}
