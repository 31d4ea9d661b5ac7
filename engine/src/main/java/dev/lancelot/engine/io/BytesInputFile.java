package dev.lancelot.engine.io;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * An {@link InputFile} over bytes already in memory (e.g. a manifest just written), under its
 * location's name.
 */
public final class BytesInputFile implements InputFile {
  private final String location;
  private final byte[] bytes;

  public BytesInputFile(String location, byte[] bytes) {
    this.location = location;
    this.bytes = bytes;
  }

  @Override
  public String location() {
    return location;
  }

  @Override
  public long length() {
    return bytes.length;
  }

  @Override
  public ByteBuffer read(long position, int length) {
    if (position < 0 || length < 0 || position + length > bytes.length) {
      throw new StorageException(
          "Cannot read "
              + location
              + ": bytes ["
              + position
              + ", "
              + (position + length)
              + ") lie outside the file of "
              + bytes.length
              + " bytes");
    }
    return ByteBuffer.wrap(bytes, (int) position, length).slice().order(ByteOrder.LITTLE_ENDIAN);
  }

  @Override
  public List<ByteBuffer> readRanges(List<ByteRange> ranges) {
    List<ByteBuffer> out = new ArrayList<>(ranges.size());
    for (ByteRange r : ranges) {
      out.add(read(r.offset(), Math.toIntExact(r.length())));
    }
    return out;
  }

  @Override
  public void close() {
    // nothing to release
  }
}
