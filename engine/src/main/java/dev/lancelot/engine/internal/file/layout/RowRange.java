package dev.lancelot.engine.internal.file.layout;

/** Rows {@code [start, end)} of one page, relative to the page's first row. */
public record RowRange(int start, int end) {
  public RowRange {
    if (start < 0 || end < start) {
      throw new IllegalArgumentException("Invalid row range [" + start + ", " + end + ")");
    }
  }

  public int length() {
    return end - start;
  }
}
