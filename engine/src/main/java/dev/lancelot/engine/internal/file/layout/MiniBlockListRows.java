package dev.lancelot.engine.internal.file.layout;

import dev.lancelot.engine.internal.file.arrow.ColumnSink;
import dev.lancelot.engine.internal.file.codec.DecodeException;
import dev.lancelot.engine.internal.file.repdef.CanonicalLevels;
import java.util.function.IntFunction;

/**
 * Rows {@code [start, end)} of a mini-block page of a list column. A row is the run of level
 * entries from one max-repetition entry to the next, and may continue across chunks (the next chunk
 * then begins with a "preamble" finishing it). Reading starts at the row's start in the chunk the
 * repetition index names, and emits level spans and the items behind them chunk by chunk, never
 * touching a chunk beyond the last row's end.
 */
final class MiniBlockListRows implements RowSource {
  private final IntFunction<MiniBlockChunk> chunks;
  private final MiniBlockMeta meta;
  private final CanonicalLevels scheme;
  private final long rowsToSkip;
  private int chunk;
  private int level;
  private int item;
  private int remaining;

  /** Index into the current chunk's row starts of the first one at or after {@code level}. */
  private int rowStart;

  private boolean positioned;

  MiniBlockListRows(
      IntFunction<MiniBlockChunk> chunks,
      MiniBlockMeta meta,
      CanonicalLevels scheme,
      int start,
      int end) {
    this.chunks = chunks;
    this.meta = meta;
    this.scheme = scheme;
    this.remaining = end - start;
    if (remaining > 0) {
      this.chunk = meta.chunkOfRowStart(start);
      this.rowsToSkip = start - meta.firstRow[chunk];
    } else {
      this.rowsToSkip = 0;
    }
  }

  @Override
  public int remaining() {
    return remaining;
  }

  /** Finds the start of the first row: skips the chunk's preamble and the rows before it. */
  private void position() {
    MiniBlockChunk d = chunks.apply(chunk);
    if (rowsToSkip >= d.numRowStarts()) {
      throw DecodeException.corrupt(
          "mini-block chunk " + chunk + " has fewer row starts than its repetition index says");
    }
    rowStart = (int) rowsToSkip;
    level = d.rowStarts()[rowStart];
    item = d.rowItems()[rowStart];
    positioned = true;
  }

  @Override
  public void emit(int n, ColumnSink sink) {
    if (n > remaining) {
      throw new IllegalArgumentException("Asked for " + n + " rows, " + remaining + " remain");
    }
    if (!sink.nested()) {
      throw DecodeException.corrupt("a page with lists for a column that is not nested");
    }
    if (n == 0) {
      return;
    }
    if (!positioned) {
      position();
    }
    reserve(n, sink);
    int done = 0;
    boolean begun = false;
    while (true) {
      MiniBlockChunk d = chunks.apply(chunk);
      int[] starts = d.rowStarts();
      int numStarts = d.numRowStarts();
      // the row start at index rowStart (if any) begins a row when none is under way; every
      // later one completes the row before it
      int completing = begun ? rowStart : rowStart + 1;
      if (rowStart < numStarts) {
        begun = true;
      }
      int stopAt = completing + (n - done) - 1;
      boolean stop = stopAt < numStarts;
      int to = stop ? stopAt : numStarts;
      if (!stop && numStarts > completing) {
        done += numStarts - completing;
      }
      if (!sink.appendListRows(
          scheme, d.def(), starts, d.rowItems(), rowStart, to, item, d.rowItems()[to])) {
        span(sink, d, level, starts[to], item, d.rowItems()[to]);
      } else if (d.rowItems()[to] > item) {
        sink.append(d.values(), item, d.rowItems()[to] - item, d.itemDefs(), item);
      }
      if (stop) {
        level = starts[to];
        item = d.rowItems()[to];
        rowStart = to;
        break;
      }
      boolean continues = chunk + 1 < meta.numChunks() && meta.preamble[chunk + 1];
      if (!continues && begun) {
        done++;
        begun = false;
      }
      chunk++;
      level = 0;
      item = 0;
      rowStart = 0;
      if (done == n) {
        break;
      }
      if (chunk >= meta.numChunks()) {
        throw DecodeException.corrupt("mini-block page ended after " + done + " of " + n + " rows");
      }
    }
    remaining -= n;
  }

  /**
   * Lets the sink make room for about {@code n} rows at the current chunk's levels and items per
   * row, so its buffers do not grow by repeated doubling.
   */
  private void reserve(int n, ColumnSink sink) {
    MiniBlockChunk d = chunks.apply(chunk);
    int rows = Math.max(1, d.numRowStarts());
    long levels = (long) n * d.numLevels() / rows;
    long items = (long) n * d.rowItems()[d.numRowStarts()] / rows;
    sink.reserveNested(
        n,
        (int) Math.min(Integer.MAX_VALUE / 2, levels + levels / 8 + 16),
        (int) Math.min(Integer.MAX_VALUE / 2, items + items / 8 + 16));
  }

  private void span(ColumnSink sink, MiniBlockChunk d, int from, int to, int fromItem, int toItem) {
    if (to > from) {
      sink.appendLevels(scheme, d.rep(), d.def(), from, to - from);
    }
    if (toItem > fromItem) {
      sink.append(d.values(), fromItem, toItem - fromItem, d.itemDefs(), fromItem);
    }
  }
}
