package dev.lancelot.engine.file.write;

import org.apache.arrow.vector.FieldVector;

/** Arrow Null columns: every page is all-null. */
final class NullColumnBuffer extends ColumnBuffer {
  private int rows;

  @Override
  void append(FieldVector v, int from, int n) {
    rows += n;
  }

  @Override
  int rows() {
    return rows;
  }

  @Override
  long bytes() {
    return 0;
  }

  @Override
  EncodedPage encode() {
    EncodedPage page = allNull(rows);
    rows = 0;
    return page;
  }
}
