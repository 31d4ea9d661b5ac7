package dev.lancelot.engine.file;

import dev.lancelot.engine.file.container.PageInfo;
import dev.lancelot.engine.file.layout.PageIo;
import dev.lancelot.engine.file.layout.PlainRows;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * Reads a float32 vector column ({@code fixed_size_list<float32, d>}) whose pages all hold plain
 * full-zip rows ({@link PlainRows}) straight into a caller's float array, chunk by chunk, without
 * Arrow vectors in between: one copy from the file's bytes (a slice of a memory map for local
 * files) into a small array that stays in the processor's cache while it is scored.
 *
 * <p>Created by {@link LanceFileReader#floatVectors}. Thread-safe; each {@link #scan} uses its own
 * buffers.
 */
public final class FloatVectorPages {
  /** Consumer of the chunks of a scan. */
  @FunctionalInterface
  public interface ChunkConsumer {
    /**
     * Rows {@code [firstRow, firstRow + rows)} of the file: row {@code firstRow + i} is {@code
     * vectors[i * d, (i + 1) * d)}. {@code nulls} is null when no row of the chunk is null,
     * otherwise {@code nulls[i]} tells whether row {@code firstRow + i} is null (its floats are
     * then meaningless). Both arrays are reused by the next chunk.
     */
    void accept(long firstRow, int rows, float[] vectors, boolean[] nulls);
  }

  private final ColumnReader column;
  private final PlainRows[] pages;
  private final int dimension;
  private final PageIo io;
  private final long windowBytes;

  FloatVectorPages(
      ColumnReader column, PlainRows[] pages, int dimension, PageIo io, long windowBytes) {
    this.column = column;
    this.pages = pages;
    this.dimension = dimension;
    this.io = io;
    this.windowBytes = windowBytes;
  }

  public int dimension() {
    return dimension;
  }

  /**
   * Hands rows {@code [start, end)} to {@code consumer} in order, in chunks of at most {@code
   * chunkRows} rows that never span two pages. Reads at most about the reader's window of bytes at
   * a time.
   */
  public void scan(long start, long end, int chunkRows, ChunkConsumer consumer) {
    if (start < 0 || end < start || end > column.info().numRows() || chunkRows <= 0) {
      throw new IllegalArgumentException(
          "Cannot scan rows ["
              + start
              + ", "
              + end
              + ") in chunks of "
              + chunkRows
              + " rows of a column of "
              + column.info().numRows()
              + " rows");
    }
    float[] vectors = new float[chunkRows * dimension];
    boolean[] nulls = new boolean[chunkRows];
    long row = start;
    while (row < end) {
      int pageIndex = column.info().pageOf(row);
      PageInfo page = column.info().pages().get(pageIndex);
      PlainRows layout = pages[pageIndex];
      int from = (int) (row - page.firstRow());
      int to = (int) (Math.min(end, page.endRow()) - page.firstRow());
      long windowRows = Math.max(chunkRows, windowBytes / layout.stride() / chunkRows * chunkRows);
      to = (int) Math.min(to, from + windowRows);
      int first = from;
      int last = to;
      ByteBuffer bytes =
          column.guard(pageIndex, () -> io.read(List.of(layout.bytesOf(first, last))).get(0));
      long firstRowOfWindow = page.firstRow() + from;
      for (int c = 0; c < last - first; c += chunkRows) {
        int chunk = c;
        int n = Math.min(chunkRows, last - first - c);
        boolean anyNull =
            column.guard(pageIndex, () -> copy(bytes, layout, chunk, n, vectors, nulls));
        consumer.accept(firstRowOfWindow + c, n, vectors, anyNull ? nulls : null);
      }
      row = page.firstRow() + to;
    }
  }

  /**
   * Copies rows {@code [first, first + n)} of a window into {@code vectors}; returns whether any is
   * null.
   */
  private boolean copy(
      ByteBuffer window, PlainRows layout, int first, int n, float[] vectors, boolean[] nulls) {
    if (layout.controlBytes() == 0) {
      window
          .slice(layout.valuePosition(first), n * layout.valueBytes())
          .order(ByteOrder.LITTLE_ENDIAN)
          .asFloatBuffer()
          .get(0, vectors, 0, n * dimension);
      return false;
    }
    boolean anyNull = false;
    ByteBuffer rows =
        window.slice(first * layout.stride(), n * layout.stride()).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < n; i++) {
      nulls[i] = layout.isNull(rows, i);
      anyNull |= nulls[i];
      rows.slice(layout.valuePosition(i), layout.valueBytes())
          .order(ByteOrder.LITTLE_ENDIAN)
          .asFloatBuffer()
          .get(0, vectors, i * dimension, dimension);
    }
    return anyNull;
  }
}
