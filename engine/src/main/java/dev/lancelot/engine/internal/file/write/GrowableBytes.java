package dev.lancelot.engine.internal.file.write;

import java.util.Arrays;
import org.apache.arrow.memory.ArrowBuf;

/**
 * A growable little-endian byte array with direct access (no synchronization, no copies on read).
 */
final class GrowableBytes {
  private byte[] bytes;
  private int size;

  GrowableBytes(int capacity) {
    bytes = new byte[Math.max(16, capacity)];
  }

  int size() {
    return size;
  }

  byte[] array() {
    return bytes;
  }

  void clear() {
    size = 0;
  }

  void ensure(long extra) {
    long needed = size + extra;
    if (needed > Integer.MAX_VALUE - 16) {
      throw new IllegalStateException("page buffer would exceed 2 GiB");
    }
    if (needed > bytes.length) {
      bytes =
          Arrays.copyOf(
              bytes, (int) Math.min(Integer.MAX_VALUE - 16, Math.max(needed, 2L * bytes.length)));
    }
  }

  void put(byte b) {
    ensure(1);
    bytes[size++] = b;
  }

  void putShort(int v) {
    ensure(2);
    bytes[size++] = (byte) v;
    bytes[size++] = (byte) (v >>> 8);
  }

  void putInt(int v) {
    ensure(4);
    for (int i = 0; i < 4; i++) {
      bytes[size++] = (byte) (v >>> (8 * i));
    }
  }

  void putLong(long v) {
    ensure(8);
    for (int i = 0; i < 8; i++) {
      bytes[size++] = (byte) (v >>> (8 * i));
    }
  }

  void put(byte[] src, int off, int len) {
    ensure(len);
    System.arraycopy(src, off, bytes, size, len);
    size += len;
  }

  /** Appends {@code len} bytes of an Arrow buffer. */
  void put(ArrowBuf src, long index, int len) {
    ensure(len);
    src.getBytes(index, bytes, size, len);
    size += len;
  }

  void zeros(int n) {
    ensure(n);
    Arrays.fill(bytes, size, size + n, (byte) 0);
    size += n;
  }

  /** Pads with zeros to a multiple of {@code alignment}. */
  void align(int alignment) {
    int pad = (alignment - size % alignment) % alignment;
    zeros(pad);
  }

  /** The bytes written so far, without a copy (valid until the next write or {@link #clear()}). */
  ByteSlice slice() {
    return new ByteSlice(bytes, 0, size);
  }

  byte[] toArray() {
    return Arrays.copyOf(bytes, size);
  }
}
