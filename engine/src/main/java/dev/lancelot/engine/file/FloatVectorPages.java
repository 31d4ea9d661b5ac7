package dev.lancelot.engine.file;

import dev.lancelot.engine.file.container.PageInfo;
import dev.lancelot.engine.file.layout.PageIo;
import dev.lancelot.engine.file.layout.PlainRows;
import dev.lancelot.engine.io.ByteRange;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads a float32 vector column ({@code fixed_size_list<float32, d>}) whose pages all hold plain
 * full-zip rows ({@link PlainRows}) straight into a caller's float array, chunk by chunk, without
 * Arrow vectors in between: one copy from the file's bytes (a slice of a memory map for local
 * files) into a small array that stays in the processor's cache while it is scored.
 *
 * <p>Two reads: {@link #scan} hands over a range of rows, {@link #scanRows} only the rows asked for
 * (a prefilter's admitted rows, the candidates of an exact re-rank), reading each run of
 * consecutive rows as one byte range.
 *
 * <p>Created by {@link LanceFileReader#floatVectors}. Thread-safe; each {@link #scan} and {@link
 * #scanRows} uses its own buffers.
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

  /** Consumer of the chunks of a {@link #scanRows} read. */
  @FunctionalInterface
  public interface RowsConsumer {
    /**
     * The vectors of the asked rows {@code rows[from, from + n)}: row {@code rows[from + i]} is
     * {@code vectors[i * d, (i + 1) * d)}; {@code nulls} as in {@link ChunkConsumer#accept}. Both
     * arrays are reused by the next chunk.
     */
    void accept(int from, int n, float[] vectors, boolean[] nulls);
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
            column.guard(pageIndex, () -> copy(bytes, layout, chunk, n, vectors, nulls, 0));
        consumer.accept(firstRowOfWindow + c, n, vectors, anyNull ? nulls : null);
      }
      row = page.firstRow() + to;
    }
  }

  /**
   * Hands the file rows {@code rows[0, count)} (ascending, no row twice) to {@code consumer} in
   * order, in chunks of at most {@code chunkRows} rows that never span two pages. Each run of
   * consecutive rows is one byte range; the ranges of about the reader's window of bytes are read
   * at once (the storage layer merges near ones into one request).
   */
  public void scanRows(long[] rows, int count, int chunkRows, RowsConsumer consumer) {
    long numRows = column.info().numRows();
    if (count < 0 || count > rows.length || chunkRows <= 0) {
      throw new IllegalArgumentException(
          "Cannot read " + count + " of " + rows.length + " rows in chunks of " + chunkRows);
    }
    for (int i = 0; i < count; i++) {
      if (rows[i] < 0 || rows[i] >= numRows || (i > 0 && rows[i] <= rows[i - 1])) {
        throw new IllegalArgumentException(
            "Cannot read row "
                + rows[i]
                + " (position "
                + i
                + ") of a column of "
                + numRows
                + " rows: rows must be ascending and distinct");
      }
    }
    float[] vectors = new float[chunkRows * dimension];
    boolean[] nulls = new boolean[chunkRows];
    int i = 0;
    while (i < count) {
      int pageIndex = column.info().pageOf(rows[i]);
      PageInfo page = column.info().pages().get(pageIndex);
      PlainRows layout = pages[pageIndex];
      long windowRows = Math.max(chunkRows, windowBytes / layout.stride() / chunkRows * chunkRows);
      int end = i;
      while (end < count && rows[end] < page.endRow() && end - i < windowRows) {
        end++;
      }
      // runs of consecutive rows: runEnd[r] is the position after run r
      List<ByteRange> ranges = new ArrayList<>();
      List<Integer> runEnds = new ArrayList<>();
      for (int j = i; j < end; ) {
        int k = j + 1;
        while (k < end && rows[k] == rows[k - 1] + 1) {
          k++;
        }
        ranges.add(
            layout.bytesOf(
                (int) (rows[j] - page.firstRow()), (int) (rows[k - 1] - page.firstRow() + 1)));
        runEnds.add(k);
        j = k;
      }
      List<ByteBuffer> bytes = column.guard(pageIndex, () -> io.read(ranges));
      int run = 0;
      int runStart = i;
      for (int c = i; c < end; c += chunkRows) {
        int n = Math.min(chunkRows, end - c);
        boolean anyNull = false;
        int x = 0;
        while (x < n) {
          int at = c + x;
          while (runEnds.get(run) <= at) {
            runStart = runEnds.get(run);
            run++;
          }
          int m = Math.min(n - x, runEnds.get(run) - at);
          ByteBuffer runBytes = bytes.get(run);
          int first = (int) (rows[at] - rows[runStart]);
          int into = x;
          anyNull |=
              column.guard(pageIndex, () -> copy(runBytes, layout, first, m, vectors, nulls, into));
          x += m;
        }
        consumer.accept(c, n, vectors, anyNull ? nulls : null);
      }
      i = end;
    }
  }

  /**
   * Copies rows {@code [first, first + n)} of a window into {@code vectors} and {@code nulls} from
   * position {@code at} (in rows) on; returns whether any is null.
   */
  private boolean copy(
      ByteBuffer window,
      PlainRows layout,
      int first,
      int n,
      float[] vectors,
      boolean[] nulls,
      int at) {
    if (layout.controlBytes() == 0) {
      window
          .slice(layout.valuePosition(first), n * layout.valueBytes())
          .order(ByteOrder.LITTLE_ENDIAN)
          .asFloatBuffer()
          .get(0, vectors, at * dimension, n * dimension);
      Arrays.fill(nulls, at, at + n, false);
      return false;
    }
    boolean anyNull = false;
    ByteBuffer rows =
        window.slice(first * layout.stride(), n * layout.stride()).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < n; i++) {
      nulls[at + i] = layout.isNull(rows, i);
      anyNull |= nulls[at + i];
      rows.slice(layout.valuePosition(i), layout.valueBytes())
          .order(ByteOrder.LITTLE_ENDIAN)
          .asFloatBuffer()
          .get(0, vectors, (at + i) * dimension, dimension);
    }
    return anyNull;
  }
}
