package dev.lancelot.engine.internal.file.write;

import java.util.List;

/** Arrow Null columns: every page is all-null. */
final class NullColumnBuffer extends ColumnBuffer {
  private final Validity validity = new Validity();

  void append(int n) {
    validity.appendNulls(n);
  }

  @Override
  int rows() {
    return validity.size();
  }

  @Override
  long bytes() {
    return 0;
  }

  @Override
  List<EncodedPage> encode() {
    EncodedPage page = PageEncoder.allNull(PageLevels.flat(validity));
    validity.clear();
    return List.of(page);
  }
}
