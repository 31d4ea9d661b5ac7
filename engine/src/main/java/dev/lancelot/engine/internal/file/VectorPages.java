package dev.lancelot.engine.internal.file;

import dev.lancelot.engine.internal.file.arrow.ColumnSink;
import dev.lancelot.engine.internal.file.codec.DecodeException;
import dev.lancelot.engine.internal.file.codec.FixedValues;
import dev.lancelot.engine.internal.file.codec.FslValues;
import dev.lancelot.engine.internal.file.codec.Values;
import dev.lancelot.engine.internal.file.container.PageInfo;
import dev.lancelot.engine.internal.file.layout.FullZipPageReader;
import dev.lancelot.engine.internal.file.layout.MiniBlockPageReader;
import dev.lancelot.engine.internal.file.layout.PageIo;
import dev.lancelot.engine.internal.file.layout.PageReader;
import dev.lancelot.engine.internal.file.layout.PlainRows;
import dev.lancelot.engine.internal.file.layout.RowRange;
import dev.lancelot.engine.internal.file.layout.RowSource;
import dev.lancelot.engine.io.ByteRange;
import dev.lancelot.engine.vector.ElementType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Reads a vector column ({@code fixed_size_list<float32 | float16 | uint8, d>}) straight into a
 * caller's arrays, chunk by chunk, without Arrow vectors in between: the vectors of a chunk are
 * copied once into a small array of the element type that stays in the processor's cache while it
 * is scored.
 *
 * <p>Pages of plain full-zip rows ({@link PlainRows}: uncompressed, the layout of wide vectors) are
 * copied from the file's bytes as they lie (a slice of a memory map for local files). Other
 * mini-block and full-zip pages (narrow vectors, compressed values) are decoded by their page
 * reader, exactly as for an Arrow read, and the decoded values are copied into the chunk instead of
 * into Arrow vectors. Either way a chunk holds the bytes the Arrow read path would hold, so
 * distances computed from it are the same bit for bit (decisions D25, D40).
 *
 * <p>Two reads: {@link #scan} hands over a range of rows, {@link #scanRows} only the rows asked for
 * (a prefilter's admitted rows, the candidates of an exact re-rank), reading each run of
 * consecutive rows as one range.
 *
 * <p>Created by {@link LanceFileReader#vectorPages}. Thread-safe; each {@link #scan} and {@link
 * #scanRows} uses its own buffers.
 */
public final class VectorPages {
  /**
   * Consecutive vectors copied out of the pages: vector {@code i} is elements {@code [i * d, (i +
   * 1) * d)} of the array of the element type ({@link #floats}, {@link #halves} or {@link #bytes};
   * the other two are null). Reused from chunk to chunk.
   */
  public static final class Chunk {
    private final ElementType element;
    private final int dimension;
    private final float[] floats;
    private final short[] halves;
    private final byte[] bytes;
    private final boolean[] nulls;
    private boolean anyNull;

    Chunk(ElementType element, int dimension, int rows) {
      this.element = element;
      this.dimension = dimension;
      this.floats = element == ElementType.FLOAT32 ? new float[rows * dimension] : null;
      this.halves = element == ElementType.FLOAT16 ? new short[rows * dimension] : null;
      this.bytes = element == ElementType.UINT8 ? new byte[rows * dimension] : null;
      this.nulls = new boolean[rows];
    }

    public ElementType element() {
      return element;
    }

    public float[] floats() {
      return floats;
    }

    public short[] halves() {
      return halves;
    }

    public byte[] bytes() {
      return bytes;
    }

    /**
     * Null when no vector of the chunk is null; otherwise {@code nulls()[i]} tells whether vector
     * {@code i} is null (its elements are then the stored placeholder).
     */
    public boolean[] nulls() {
      return anyNull ? nulls : null;
    }

    void clear() {
      anyNull = false;
    }

    void setNull(int row, boolean isNull) {
      nulls[row] = isNull;
      anyNull |= isNull;
    }

    /** Copies {@code n} vectors stored back to back at {@code src[pos]} to vectors {@code at…}. */
    void copy(ByteBuffer src, int pos, int at, int n) {
      int items = n * dimension;
      int to = at * dimension;
      ByteBuffer s = src.slice(pos, items * element.byteWidth()).order(ByteOrder.LITTLE_ENDIAN);
      switch (element) {
        case FLOAT32 -> s.asFloatBuffer().get(0, floats, to, items);
        case FLOAT16 -> s.asShortBuffer().get(0, halves, to, items);
        case UINT8 -> s.get(0, bytes, to, items);
      }
    }

    void zero(int at, int n) {
      int from = at * dimension;
      int to = (at + n) * dimension;
      switch (element) {
        case FLOAT32 -> Arrays.fill(floats, from, to, 0f);
        case FLOAT16 -> Arrays.fill(halves, from, to, (short) 0);
        case UINT8 -> Arrays.fill(bytes, from, to, (byte) 0);
      }
    }
  }

  /** Consumer of the chunks of a {@link #scan}. */
  @FunctionalInterface
  public interface ChunkConsumer {
    /** Rows {@code [firstRow, firstRow + rows)} of the file are vectors {@code [0, rows)}. */
    void accept(long firstRow, int rows, Chunk chunk);
  }

  /** Consumer of the chunks of a {@link #scanRows} read. */
  @FunctionalInterface
  public interface RowsConsumer {
    /** The asked rows {@code rows[from, from + n)} are vectors {@code [0, n)} of the chunk. */
    void accept(int from, int n, Chunk chunk);
  }

  private final ColumnReader column;
  private final ElementType element;
  private final int dimension;

  /** Per page: its plain rows, or null when its reader decodes it ({@link #decoded}). */
  private final PlainRows[] plain;

  private final PageReader[] decoded;
  private final PageIo io;
  private final long windowBytes;

  /**
   * {@link LanceFileReader#vectorPages(FileProjection)} of {@code file}, reading about {@code
   * windowBytes} at a time.
   */
  static VectorPages open(LanceFileReader file, FileProjection projection, long windowBytes) {
    if (projection.schema().fields().size() != 1 || file.version().equals(FileVersion.V2_0)) {
      return null;
    }
    Field field = file.arrowSchema(projection).getFields().get(0);
    if (!(field.getType() instanceof ArrowType.FixedSizeList list)
        || field.getChildren().size() != 1) {
      return null;
    }
    ElementType element = elementOf(field.getChildren().get(0).getType());
    List<ColumnReader> cols = file.columnsFor(projection, 0);
    if (element == null || cols.size() != 1) {
      return null;
    }
    ColumnReader column = cols.get(0);
    int dimension = list.getListSize();
    int n = column.info().pages().size();
    PlainRows[] plain = new PlainRows[n];
    PageReader[] decoded = new PageReader[n];
    for (int i = 0; i < n; i++) {
      PageReader reader = column.page(i);
      if (reader instanceof FullZipPageReader fz) {
        PlainRows rows = fz.plainRows();
        if (rows != null && rows.valueBytes() == (long) dimension * element.byteWidth()) {
          plain[i] = rows;
        } else {
          decoded[i] = fz;
        }
      } else if (reader instanceof MiniBlockPageReader) {
        decoded[i] = reader;
      } else {
        return null;
      }
    }
    return new VectorPages(column, element, dimension, plain, decoded, file.io, windowBytes);
  }

  private static ElementType elementOf(ArrowType type) {
    if (type instanceof ArrowType.FloatingPoint fp) {
      return fp.getPrecision() == FloatingPointPrecision.SINGLE
          ? ElementType.FLOAT32
          : fp.getPrecision() == FloatingPointPrecision.HALF ? ElementType.FLOAT16 : null;
    }
    if (type instanceof ArrowType.Int i && i.getBitWidth() == 8 && !i.getIsSigned()) {
      return ElementType.UINT8;
    }
    return null;
  }

  VectorPages(
      ColumnReader column,
      ElementType element,
      int dimension,
      PlainRows[] plain,
      PageReader[] decoded,
      PageIo io,
      long windowBytes) {
    this.column = column;
    this.element = element;
    this.dimension = dimension;
    this.plain = plain;
    this.decoded = decoded;
    this.io = io;
    this.windowBytes = windowBytes;
  }

  public int dimension() {
    return dimension;
  }

  public ElementType element() {
    return element;
  }

  /** Whether every page is read as stored, without a decoder ({@link PlainRows}). */
  public boolean allPlain() {
    return Arrays.stream(plain).allMatch(p -> p != null);
  }

  private long windowRows(int pageIndex, int chunkRows) {
    long rowBytes =
        plain[pageIndex] != null
            ? plain[pageIndex].stride()
            : (long) dimension * element.byteWidth();
    return Math.max(chunkRows, windowBytes / rowBytes / chunkRows * chunkRows);
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
    Chunk chunk = new Chunk(element, dimension, chunkRows);
    ChunkSink sink = new ChunkSink();
    long row = start;
    while (row < end) {
      int pageIndex = column.info().pageOf(row);
      PageInfo page = column.info().pages().get(pageIndex);
      int from = (int) (row - page.firstRow());
      int to = (int) (Math.min(end, page.endRow()) - page.firstRow());
      to = (int) Math.min(to, from + windowRows(pageIndex, chunkRows));
      int first = from;
      int last = to;
      long firstRowOfWindow = page.firstRow() + from;
      PlainRows layout = plain[pageIndex];
      if (layout != null) {
        ByteBuffer bytes =
            column.guard(pageIndex, () -> io.read(List.of(layout.bytesOf(first, last))).get(0));
        for (int c = 0; c < last - first; c += chunkRows) {
          int at = c;
          int n = Math.min(chunkRows, last - first - c);
          chunk.clear();
          column.guardRun(pageIndex, () -> copyPlain(bytes, layout, at, n, chunk, 0));
          consumer.accept(firstRowOfWindow + c, n, chunk);
        }
      } else {
        PageReader reader = decoded[pageIndex];
        RowSource source =
            column.guard(
                pageIndex, () -> reader.load(List.of(new RowRange(first, last)), io).get(0));
        for (int c = 0; c < last - first; c += chunkRows) {
          int n = Math.min(chunkRows, last - first - c);
          chunk.clear();
          sink.start(chunk, 0);
          column.guardRun(pageIndex, () -> source.emit(n, sink));
          consumer.accept(firstRowOfWindow + c, n, chunk);
        }
      }
      row = page.firstRow() + to;
    }
  }

  /**
   * Hands the file rows {@code rows[0, count)} (ascending, no row twice) to {@code consumer} in
   * order, in chunks of at most {@code chunkRows} rows that never span two pages. Each run of
   * consecutive rows is one range; the ranges of about the reader's window of bytes are read at
   * once (the storage layer merges near ones into one request).
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
    Chunk chunk = new Chunk(element, dimension, chunkRows);
    ChunkSink sink = new ChunkSink();
    int i = 0;
    while (i < count) {
      int pageIndex = column.info().pageOf(rows[i]);
      PageInfo page = column.info().pages().get(pageIndex);
      long windowRows = windowRows(pageIndex, chunkRows);
      int end = i;
      while (end < count && rows[end] < page.endRow() && end - i < windowRows) {
        end++;
      }
      // runs of consecutive rows: runEnds[r] is the position after run r
      List<RowRange> runs = new ArrayList<>();
      List<Integer> runEnds = new ArrayList<>();
      for (int j = i; j < end; ) {
        int k = j + 1;
        while (k < end && rows[k] == rows[k - 1] + 1) {
          k++;
        }
        runs.add(
            new RowRange(
                (int) (rows[j] - page.firstRow()), (int) (rows[k - 1] - page.firstRow() + 1)));
        runEnds.add(k);
        j = k;
      }
      PlainRows layout = plain[pageIndex];
      List<ByteBuffer> bytes;
      List<RowSource> sources;
      if (layout != null) {
        List<ByteRange> ranges = new ArrayList<>(runs.size());
        for (RowRange r : runs) {
          ranges.add(layout.bytesOf(r.start(), r.end()));
        }
        bytes = column.guard(pageIndex, () -> io.read(ranges));
        sources = null;
      } else {
        bytes = null;
        sources = column.guard(pageIndex, () -> decoded[pageIndex].load(runs, io));
      }
      int run = 0;
      int runStart = i;
      for (int c = i; c < end; c += chunkRows) {
        int n = Math.min(chunkRows, end - c);
        chunk.clear();
        int x = 0;
        while (x < n) {
          int at = c + x;
          while (runEnds.get(run) <= at) {
            runStart = runEnds.get(run);
            run++;
          }
          int m = Math.min(n - x, runEnds.get(run) - at);
          int into = x;
          if (layout != null) {
            ByteBuffer runBytes = bytes.get(run);
            int first = (int) (rows[at] - rows[runStart]);
            column.guardRun(pageIndex, () -> copyPlain(runBytes, layout, first, m, chunk, into));
          } else {
            RowSource source = sources.get(run);
            sink.start(chunk, into);
            column.guardRun(pageIndex, () -> source.emit(m, sink));
          }
          x += m;
        }
        consumer.accept(c, n, chunk);
      }
      i = end;
    }
  }

  /**
   * Copies rows {@code [first, first + n)} of some plain rows' bytes to vectors {@code at…} of
   * {@code chunk}.
   */
  private void copyPlain(
      ByteBuffer window, PlainRows layout, int first, int n, Chunk chunk, int at) {
    if (layout.controlBytes() == 0) {
      chunk.copy(window, layout.valuePosition(first), at, n);
      for (int i = 0; i < n; i++) {
        chunk.setNull(at + i, false);
      }
      return;
    }
    ByteBuffer rows =
        window.slice(first * layout.stride(), n * layout.stride()).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < n; i++) {
      chunk.setNull(at + i, layout.isNull(rows, i));
      chunk.copy(rows, layout.valuePosition(i), at + i, 1);
    }
  }

  /**
   * Receives the rows a page reader decodes and copies them into a chunk instead of Arrow vectors:
   * the same decoded values, the same bytes.
   */
  private final class ChunkSink implements ColumnSink {
    private Chunk chunk;
    private int at;

    void start(Chunk chunk, int at) {
      this.chunk = chunk;
      this.at = at;
    }

    @Override
    public void appendNulls(int n) {
      chunk.zero(at, n);
      for (int i = 0; i < n; i++) {
        chunk.setNull(at + i, true);
      }
      at += n;
    }

    @Override
    public void append(Values values, int from, int n, short[] defs, int defFrom) {
      if (!(values instanceof FslValues fsl)
          || fsl.dimension() != dimension
          || !(fsl.items() instanceof FixedValues items)
          || items.bitsPerValue() != element.byteWidth() * 8) {
        throw DecodeException.corrupt(
            "expected fixed-size lists of "
                + dimension
                + " "
                + (element.byteWidth() * 8)
                + "-bit items but decoded "
                + describe(values));
      }
      chunk.copy(items.data(), items.offset() + from * dimension * element.byteWidth(), at, n);
      for (int i = 0; i < n; i++) {
        chunk.setNull(at + i, defs != null && defs[defFrom + i] != 0);
      }
      at += n;
    }

    private static String describe(Values values) {
      if (values instanceof FslValues fsl) {
        return "lists of "
            + fsl.dimension()
            + (fsl.items() instanceof FixedValues items
                ? " " + items.bitsPerValue() + "-bit items"
                : " " + fsl.items().getClass().getSimpleName());
      }
      return values.getClass().getSimpleName();
    }

    @Override
    public int size() {
      return at;
    }

    @Override
    public FieldVector finish() {
      throw new IllegalStateException("A chunk of vectors is not an Arrow vector");
    }

    @Override
    public void abort() {}
  }
}
