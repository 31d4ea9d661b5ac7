package dev.lancelot.engine.internal.file.container;

import java.util.List;

/**
 * One column of a file: its pages in row order and its column-level buffers.
 *
 * @param index column index within the file
 * @param pages pages in row order
 * @param encodingType type URL of the column encoding ({@code /lance.encodings.ColumnEncoding})
 * @param bufferOffsets column buffer offsets (Lance 7 writes none for plain columns)
 * @param bufferSizes column buffer sizes
 */
public record ColumnInfo(
    int index,
    List<PageInfo> pages,
    String encodingType,
    long[] bufferOffsets,
    long[] bufferSizes) {

  public long numRows() {
    return pages.isEmpty() ? 0 : pages.get(pages.size() - 1).endRow();
  }

  /** Index of the page holding {@code row}, by binary search over first rows. */
  public int pageOf(long row) {
    int lo = 0;
    int hi = pages.size() - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (pages.get(mid).firstRow() <= row) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  /** Bytes of all page buffers. */
  public long dataBytes() {
    long total = 0;
    for (PageInfo p : pages) {
      for (long s : p.bufferSizes()) {
        total += s;
      }
    }
    return total;
  }
}
