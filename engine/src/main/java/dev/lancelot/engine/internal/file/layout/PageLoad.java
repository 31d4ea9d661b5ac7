package dev.lancelot.engine.internal.file.layout;

import dev.lancelot.engine.io.ByteRange;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The I/O of loading some rows of one page, as a sequence of rounds: {@link #reads()} lists the
 * ranges needed next, {@link #supply} hands them over, until {@link #done()}. Splitting I/O into
 * rounds lets a caller batch the reads of many pages and columns into one request per round (a take
 * needs at most three rounds: page metadata, index entries, values).
 */
public interface PageLoad {
  /** Ranges needed for the next round (empty only when done). */
  List<ByteRange> reads();

  /** The buffers of {@link #reads()}, in order. */
  void supply(List<ByteBuffer> buffers);

  boolean done();

  /** One source per requested range, in order; valid once {@link #done()}. */
  List<RowSource> sources();

  /** Runs all rounds against {@code io}. */
  default List<RowSource> run(PageIo io) {
    while (!done()) {
      supply(io.read(reads()));
    }
    return sources();
  }
}
