package dev.lancelot.engine.internal.file.container;

import dev.lancelot.engine.internal.file.proto.Encodings20Protos.ArrayEncoding;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.PageLayout;

/**
 * One page of one column, from {@code ColumnMetadata.Page}.
 *
 * @param index page number within the column
 * @param firstRow row number (within the file) of the page's first row
 * @param numRows rows in the page
 * @param bufferOffsets absolute file offsets of the page buffers
 * @param bufferSizes sizes of the page buffers
 * @param layout the 2.1+ page layout, or null when the page uses another encoding
 * @param encodingType the {@code google.protobuf.Any} type URL of the page encoding
 * @param arrayEncoding the format 2.0 page encoding, or null when the page uses another encoding
 */
public record PageInfo(
    int index,
    long firstRow,
    long numRows,
    long[] bufferOffsets,
    long[] bufferSizes,
    PageLayout layout,
    String encodingType,
    ArrayEncoding arrayEncoding) {

  public PageInfo(
      int index,
      long firstRow,
      long numRows,
      long[] bufferOffsets,
      long[] bufferSizes,
      PageLayout layout,
      String encodingType) {
    this(index, firstRow, numRows, bufferOffsets, bufferSizes, layout, encodingType, null);
  }

  public long endRow() {
    return firstRow + numRows;
  }

  public int numBuffers() {
    return bufferOffsets.length;
  }

  public long bufferOffset(int i) {
    return bufferOffsets[i];
  }

  public long bufferSize(int i) {
    return bufferSizes[i];
  }
}
