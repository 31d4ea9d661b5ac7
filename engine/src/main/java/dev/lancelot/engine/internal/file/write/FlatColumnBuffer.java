package dev.lancelot.engine.internal.file.write;

import java.util.List;
import org.apache.arrow.vector.FieldVector;

/** A column of primitives, strings or fixed-size lists: each row is one item. */
final class FlatColumnBuffer extends ColumnBuffer {
  private final ItemBuffer items;

  FlatColumnBuffer(ItemBuffer items) {
    this.items = items;
  }

  /** Appends rows {@code [from, from + n)} of {@code v}. */
  void append(FieldVector v, int from, int n) {
    items.append(v, from, n);
  }

  @Override
  int rows() {
    return items.items();
  }

  @Override
  long bytes() {
    return items.bytes();
  }

  @Override
  List<EncodedPage> encode() {
    try {
      return List.of(PageEncoder.encode(items, 0, PageLevels.flat(items.validity)));
    } finally {
      items.clear();
    }
  }
}
