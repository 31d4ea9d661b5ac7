package dev.lancelot.engine.internal.file.layout;

import dev.lancelot.engine.io.ByteRange;
import java.nio.ByteBuffer;
import java.util.List;

/** Positioned reads for page readers; ranges may be coalesced by the implementation. */
@FunctionalInterface
public interface PageIo {
  /** Reads the ranges, returning one little-endian buffer positioned at 0 per range, in order. */
  List<ByteBuffer> read(List<ByteRange> ranges);
}
