package dev.lancelot.engine.internal.file.layout;

import dev.lancelot.engine.io.ByteRange;
import java.nio.ByteBuffer;

/**
 * Where the rows of a full-zip page of plain fixed-width values lie, for readers that use the
 * stored bytes as they are (flat KNN scores float32 vectors straight from them). Only pages whose
 * values are stored uncompressed, without lists, nesting or inner validity have one ({@link
 * FullZipPageReader#plainRows()}). Layout of the page's buffer 0, at file position {@code
 * dataOffset}:
 *
 * <pre>
 *   per row:
 *     [controlBytes: u8 or u16 LE] definition level (0 = valid row, otherwise null; absent when
 *                                  the column has no nulls)
 *     [valueBytes]                 the value, little-endian (null rows hold zeros)
 * </pre>
 */
public record PlainRows(long dataOffset, int controlBytes, int valueBytes, int defMask) {
  public PlainRows {
    if ((controlBytes != 0 && controlBytes != 1 && controlBytes != 2) || valueBytes <= 0) {
      throw new IllegalArgumentException(
          "Plain rows of " + controlBytes + " control and " + valueBytes + " value bytes");
    }
  }

  public int stride() {
    return controlBytes + valueBytes;
  }

  /** The file bytes of page rows {@code [start, end)}. */
  public ByteRange bytesOf(int start, int end) {
    return new ByteRange(dataOffset + (long) start * stride(), (long) (end - start) * stride());
  }

  /** Whether row {@code i} of {@code rows} (the bytes of a {@link #bytesOf} range) is null. */
  public boolean isNull(ByteBuffer rows, int i) {
    if (controlBytes == 0) {
      return false;
    }
    int pos = i * stride();
    int control =
        controlBytes == 1
            ? Byte.toUnsignedInt(rows.get(pos))
            : Short.toUnsignedInt(rows.getShort(pos));
    return (control & defMask) != 0;
  }

  /** Byte position of row {@code i}'s value within the bytes of a {@link #bytesOf} range. */
  public int valuePosition(int i) {
    return i * stride() + controlBytes;
  }
}
