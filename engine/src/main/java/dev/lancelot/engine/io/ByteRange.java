package dev.lancelot.engine.io;

/** A range of bytes in a file: {@code [offset, offset + length)}. */
public record ByteRange(long offset, long length) {
  public ByteRange {
    if (offset < 0 || length < 0) {
      throw new IllegalArgumentException(
          "Invalid byte range: offset=" + offset + " length=" + length);
    }
  }

  public long end() {
    return offset + length;
  }
}
