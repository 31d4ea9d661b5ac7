package dev.lancelot.engine.io;

import java.io.Closeable;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Random-access reads of one immutable file. Implementations are thread-safe: positioned reads from
 * several threads may run concurrently. The caller that opened the file closes it.
 */
public interface InputFile extends Closeable {
  /** Fully-qualified location, used in error messages. */
  String location();

  /** Length in bytes (fetched once, then cached). */
  long length();

  /** Reads exactly {@code length} bytes at {@code position}; fails with a clear error past EOF. */
  ByteBuffer read(long position, int length);

  /**
   * Reads several ranges, returning one little-endian buffer per range in the order asked. Ranges
   * close to each other are fetched with one request (see {@link ReadCoalescer}).
   */
  List<ByteBuffer> readRanges(List<ByteRange> ranges);

  /** Reads the last {@code length} bytes (or the whole file when shorter). */
  default ByteBuffer readTail(int length) {
    long len = length();
    int n = (int) Math.min(len, length);
    return read(len - n, n);
  }

  @Override
  void close();
}
