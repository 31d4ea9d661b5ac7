package dev.lancelot.engine.file.write;

import dev.lancelot.engine.file.proto.Encodings21Protos.AllNullLayout;
import dev.lancelot.engine.file.proto.Encodings21Protos.PageLayout;
import dev.lancelot.engine.file.proto.Encodings21Protos.RepDefLayer;
import java.util.List;
import org.apache.arrow.vector.FieldVector;

/**
 * The rows of one column waiting to become a page. Values are copied out of the caller's
 * vectors (which may be reused) in bulk; {@link #encode()} picks the layout and resets.
 *
 * <p>Layout choice, as Lance 7 does for 2.1: pages whose rows are all null use the all-null
 * layout; values under 256 bytes use mini-block chunks; wider values use full-zip. Values are not
 * compressed (Flat, Variable, FixedSizeList), which every 2.1 reader decodes.
 */
abstract class ColumnBuffer {
  /** Values under this many bytes are "narrow" and go to mini-block pages. */
  static final int NARROW_BYTES = 256;

  /** Appends rows {@code [from, from + n)} of {@code v}. */
  abstract void append(FieldVector v, int from, int n);

  abstract int rows();

  /** Approximate encoded size of the buffered rows. */
  abstract long bytes();

  /** Encodes the buffered rows as one page and clears the buffer. */
  abstract EncodedPage encode();

  static EncodedPage allNull(long rows) {
    return new EncodedPage(PageLayout.newBuilder()
        .setAllNullLayout(AllNullLayout.newBuilder().addLayers(RepDefLayer.REPDEF_NULLABLE_ITEM)).build(),
        List.of(), rows);
  }
}
