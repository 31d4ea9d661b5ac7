package dev.lancelot.engine.internal.file.codec;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Run-length encoding of fixed-width values (mini-block chunks). Two buffers:
 *
 * <pre>
 *   buffer 0: [T-bit value] per run
 *   buffer 1: [u8 run length] per run (1..255; longer runs are split)
 * </pre>
 *
 * The runs expand to at least the chunk's value count; extra values are ignored.
 */
public final class Rle {
  private Rle() {}

  public static FixedValues decode(
      int bitsPerValue, ByteBuffer values, ByteBuffer lengths, int numValues) {
    if (bitsPerValue % 8 != 0 || bitsPerValue == 0 || bitsPerValue > 64) {
      throw DecodeException.unsupported("run-length encoding of " + bitsPerValue + "-bit values");
    }
    int width = bitsPerValue / 8;
    int runs = lengths.limit();
    if (values.limit() != runs * width) {
      throw DecodeException.corrupt(
          "run-length chunk has "
              + runs
              + " run lengths but "
              + values.limit()
              + " bytes of values ("
              + width
              + " bytes each)");
    }
    ByteBuffer out = ByteBuffer.allocate(numValues * width).order(ByteOrder.LITTLE_ENDIAN);
    int pos = 0;
    for (int r = 0; r < runs && pos < numValues; r++) {
      int len = Byte.toUnsignedInt(lengths.get(r));
      if (len == 0) {
        throw DecodeException.corrupt("run-length chunk contains a run of length 0");
      }
      int n = Math.min(len, numValues - pos);
      switch (width) {
        case 8 -> {
          long v = values.getLong(8 * r);
          for (int i = 0; i < n; i++) {
            out.putLong(8 * (pos + i), v);
          }
        }
        case 4 -> {
          int v = values.getInt(4 * r);
          for (int i = 0; i < n; i++) {
            out.putInt(4 * (pos + i), v);
          }
        }
        case 2 -> {
          short v = values.getShort(2 * r);
          for (int i = 0; i < n; i++) {
            out.putShort(2 * (pos + i), v);
          }
        }
        case 1 -> {
          byte v = values.get(r);
          for (int i = 0; i < n; i++) {
            out.put(pos + i, v);
          }
        }
        default -> {
          for (int i = 0; i < n; i++) {
            for (int b = 0; b < width; b++) {
              out.put(width * (pos + i) + b, values.get(width * r + b));
            }
          }
        }
      }
      pos += n;
    }
    if (pos < numValues) {
      throw DecodeException.corrupt(
          "run-length chunk expands to " + pos + " values but " + numValues + " were expected");
    }
    return new FixedValues(out, 0, bitsPerValue, numValues);
  }
}
