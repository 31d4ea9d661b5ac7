package dev.lancelot.engine.file.layout;

import dev.lancelot.engine.file.container.PageInfo;
import java.util.List;

/**
 * Reads rows of one page. Thread-safe: page metadata (chunk tables, dictionaries) is loaded once
 * and shared; everything specific to a read lives in the returned {@link RowSource}s.
 */
public interface PageReader {
  PageInfo page();

  /**
   * Fetches what the given sorted, disjoint ranges need (only those bytes, plus page metadata on
   * first use) and returns one source per range, in order.
   */
  List<RowSource> load(List<RowRange> ranges, PageIo io);

  /** Approximate bytes {@link #load} reads for rows {@code [start, end)}, to size scan windows. */
  long estimateBytes(int start, int end);

  /** Human-readable layout and encodings, e.g. {@code MiniBlock[values=Flat(64), def=...]}. */
  String describe();
}
