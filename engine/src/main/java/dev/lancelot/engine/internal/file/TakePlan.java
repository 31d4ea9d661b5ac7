package dev.lancelot.engine.internal.file;

import dev.lancelot.engine.internal.file.container.ColumnInfo;
import dev.lancelot.engine.internal.file.container.PageInfo;
import dev.lancelot.engine.internal.file.layout.PageIo;
import dev.lancelot.engine.internal.file.layout.PageLoad;
import dev.lancelot.engine.internal.file.layout.PageReader;
import dev.lancelot.engine.internal.file.layout.RowRange;
import dev.lancelot.engine.io.ByteRange;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The I/O of a take ({@link LanceFileReader#take}): the page loads holding the rows asked for, per
 * column, and the rounds that drive them.
 */
final class TakePlan {
  private TakePlan() {}

  /** The load of one page of one column within a take. */
  record PlannedPage(ColumnReader column, int pageIndex, PageLoad load) {}

  /** The loads of the pages of {@code column} holding {@code rows} (ascending). */
  static List<PlannedPage> plan(ColumnReader column, long[] rows) {
    ColumnInfo info = column.info();
    List<PlannedPage> out = new ArrayList<>();
    int i = 0;
    while (i < rows.length) {
      int pageIndex = info.pageOf(rows[i]);
      PageInfo page = info.pages().get(pageIndex);
      List<RowRange> ranges = new ArrayList<>();
      while (i < rows.length && rows[i] < page.endRow()) {
        int start = (int) (rows[i] - page.firstRow());
        int end = start + 1;
        i++;
        while (i < rows.length && rows[i] == page.firstRow() + end && rows[i] < page.endRow()) {
          end++;
          i++;
        }
        ranges.add(new RowRange(start, end));
      }
      PageReader reader = column.page(pageIndex);
      out.add(
          new PlannedPage(column, pageIndex, column.guard(pageIndex, () -> reader.plan(ranges))));
    }
    return out;
  }

  /**
   * Drives all page loads in lock step: each round gathers the reads of every unfinished load (all
   * columns, all pages) into one coalesced request, so a take costs at most three rounds of I/O
   * (page metadata, index entries, values) however many pages it touches.
   */
  static void run(List<List<PlannedPage>> plans, PageIo io) {
    while (true) {
      List<PlannedPage> pending = new ArrayList<>();
      List<List<ByteRange>> reads = new ArrayList<>();
      List<ByteRange> all = new ArrayList<>();
      for (List<PlannedPage> column : plans) {
        for (PlannedPage p : column) {
          if (!p.load().done()) {
            List<ByteRange> r = p.column().guard(p.pageIndex(), p.load()::reads);
            pending.add(p);
            reads.add(r);
            all.addAll(r);
          }
        }
      }
      if (pending.isEmpty()) {
        return;
      }
      List<ByteBuffer> fetched = all.isEmpty() ? List.of() : io.read(all);
      int k = 0;
      for (int j = 0; j < pending.size(); j++) {
        int n = reads.get(j).size();
        List<ByteBuffer> mine = fetched.subList(k, k + n);
        k += n;
        PlannedPage p = pending.get(j);
        p.column().guardRun(p.pageIndex(), () -> p.load().supply(mine));
      }
    }
  }
}
