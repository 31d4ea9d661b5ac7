package dev.lancelot.engine.internal.file.layout;

import dev.lancelot.engine.internal.file.container.PageInfo;
import java.util.List;

/**
 * Reads rows of one page. Thread-safe: page metadata (chunk tables, dictionaries) is loaded once
 * and shared; everything specific to a read lives in the returned {@link PageLoad} and {@link
 * RowSource}s.
 */
public interface PageReader {
  PageInfo page();

  /**
   * Plans loading the given sorted ranges: only their bytes, plus page metadata on first use. The
   * returned load yields one source per range, in order.
   */
  PageLoad plan(List<RowRange> ranges);

  /** Plans and runs the load with {@code io}. */
  default List<RowSource> load(List<RowRange> ranges, PageIo io) {
    return plan(ranges).run(io);
  }

  /** Approximate bytes a load reads for rows {@code [start, end)}, to size scan windows. */
  long estimateBytes(int start, int end);

  /** Human-readable layout and encodings, e.g. {@code MiniBlock[values=Flat(64), def=...]}. */
  String describe();
}
