package dev.lancelot.engine.file.layout;

import dev.lancelot.engine.file.arrow.ColumnSink;
import dev.lancelot.engine.file.codec.DecodeException;
import dev.lancelot.engine.file.repdef.CanonicalLevels;
import java.util.function.IntFunction;

/**
 * Rows {@code [start, end)} of a mini-block page of a list column. A row is the run of level
 * entries from one max-repetition entry to the next, and may continue across chunks (the next
 * chunk then begins with a "preamble" finishing it). Reading starts at the row's start in the
 * chunk the repetition index names, and emits level spans and the items behind them chunk by
 * chunk, never touching a chunk beyond the last row's end.
 */
final class MiniBlockListRows implements RowSource {
  private final IntFunction<MiniBlockChunk> chunks;
  private final MiniBlockMeta meta;
  private final CanonicalLevels scheme;
  private final int maxRep;
  private final long rowsToSkip;
  private int chunk;
  private int level;
  private int item;
  private int remaining;
  private boolean positioned;

  MiniBlockListRows(IntFunction<MiniBlockChunk> chunks, MiniBlockMeta meta, CanonicalLevels scheme, int start,
      int end) {
    this.chunks = chunks;
    this.meta = meta;
    this.scheme = scheme;
    this.maxRep = scheme.numLists();
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
    long seen = -1;
    int it = 0;
    for (int i = 0; i < d.numLevels(); i++) {
      if (d.rep()[i] == maxRep && ++seen == rowsToSkip) {
        level = i;
        item = it;
        positioned = true;
        return;
      }
      if (d.def() == null || scheme.visible(d.def()[i])) {
        it++;
      }
    }
    throw DecodeException.corrupt("mini-block chunk " + chunk + " has fewer row starts than its repetition index says");
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
    int done = 0;
    boolean begun = false;
    while (true) {
      MiniBlockChunk d = chunks.apply(chunk);
      short[] rep = d.rep();
      short[] def = d.def();
      int from = level;
      int fromItem = item;
      int it = item;
      int i = level;
      boolean stop = false;
      for (; i < d.numLevels(); i++) {
        if (rep[i] == maxRep) {
          if (begun && ++done == n) {
            stop = true;
            break;
          }
          begun = true;
        }
        if (def == null || scheme.visible(def[i])) {
          it++;
        }
      }
      span(sink, d, from, i, fromItem, it);
      level = i;
      item = it;
      if (stop) {
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
      if (done == n) {
        break;
      }
      if (chunk >= meta.numChunks()) {
        throw DecodeException.corrupt("mini-block page ended after " + done + " of " + n + " rows");
      }
    }
    remaining -= n;
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
