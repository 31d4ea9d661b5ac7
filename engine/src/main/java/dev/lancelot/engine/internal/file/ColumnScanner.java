package dev.lancelot.engine.internal.file;

import dev.lancelot.engine.internal.file.arrow.ColumnSink;
import dev.lancelot.engine.internal.file.container.PageInfo;
import dev.lancelot.engine.internal.file.layout.PageIo;
import dev.lancelot.engine.internal.file.layout.PageReader;
import dev.lancelot.engine.internal.file.layout.RowRange;
import dev.lancelot.engine.internal.file.layout.RowSource;
import java.util.List;

/**
 * Sequential reader of rows {@code [start, end)} of one column. Loads one window at a time: the
 * rest of the current page, capped at about {@code windowBytes} of encoded data, so a scan reads
 * each needed byte once, in few large requests, and never pages outside the range.
 */
final class ColumnScanner {
  private final ColumnReader column;
  private final PageIo io;
  private final long end;
  private final long windowBytes;
  private long row;
  private int pageIndex = -1;
  private RowSource current;

  ColumnScanner(ColumnReader column, PageIo io, long start, long end, long windowBytes) {
    this.column = column;
    this.io = io;
    this.row = start;
    this.end = end;
    this.windowBytes = windowBytes;
  }

  /** Appends the next {@code n} rows to {@code sink}. */
  void next(int n, ColumnSink sink) {
    while (n > 0) {
      if (current == null || current.remaining() == 0) {
        loadWindow();
      }
      int k = Math.min(n, current.remaining());
      RowSource source = current;
      column.guardRun(pageIndex, () -> source.emit(k, sink));
      n -= k;
    }
  }

  private void loadWindow() {
    if (row >= end) {
      throw new IllegalStateException("Scan read past its end row " + end);
    }
    pageIndex = column.info().pageOf(row);
    PageInfo page = column.info().pages().get(pageIndex);
    PageReader reader = column.page(pageIndex);
    int from = (int) (row - page.firstRow());
    int to = (int) (Math.min(end, page.endRow()) - page.firstRow());
    long estimate = reader.estimateBytes(from, to);
    if (estimate > windowBytes && to - from > 1) {
      long rows = Math.max(1, (to - from) * windowBytes / estimate);
      to = (int) Math.min(to, from + rows);
    }
    RowRange range = new RowRange(from, to);
    current = column.guard(pageIndex, () -> reader.load(List.of(range), io).get(0));
    row = page.firstRow() + to;
  }
}
