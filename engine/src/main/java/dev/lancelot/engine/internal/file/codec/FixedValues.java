package dev.lancelot.engine.internal.file.codec;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * {@code count} fixed-width values. For a width that is a multiple of 8 bits, value {@code i}
 * occupies bytes {@code [offset + i*w/8, offset + (i+1)*w/8)} of {@code data}; for 1-bit values
 * (booleans) value {@code i} is bit {@code i} (LSB first) counted from byte {@code offset}.
 */
public record FixedValues(ByteBuffer data, int offset, int bitsPerValue, int count)
    implements Values {
  public FixedValues {
    if (bitsPerValue != 1 && bitsPerValue % 8 != 0) {
      throw DecodeException.unsupported(
          "fixed-width values of " + bitsPerValue + " bits are not supported");
    }
    long needed = bitsPerValue == 1 ? (count + 7L) / 8 : (long) count * (bitsPerValue / 8);
    if (offset < 0 || offset + needed > data.limit()) {
      throw DecodeException.corrupt(
          "a buffer of "
              + data.limit()
              + " bytes is too short for "
              + count
              + " values of "
              + bitsPerValue
              + " bits at offset "
              + offset);
    }
  }

  /** Values in a freshly allocated little-endian buffer. */
  public static FixedValues wrap(byte[] bytes, int bitsPerValue, int count) {
    return new FixedValues(
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN), 0, bitsPerValue, count);
  }

  public int bytesPerValue() {
    return bitsPerValue / 8;
  }

  /** Value {@code i} as an unsigned integer (widths up to 64 bits). */
  public long getUnsigned(int i) {
    return switch (bitsPerValue) {
      case 1 -> (data.get(offset + (i >>> 3)) >>> (i & 7)) & 1;
      case 8 -> Byte.toUnsignedLong(data.get(offset + i));
      case 16 -> Short.toUnsignedLong(data.getShort(offset + 2 * i));
      case 32 -> Integer.toUnsignedLong(data.getInt(offset + 4 * i));
      case 64 -> data.getLong(offset + 8 * i);
      default ->
          throw DecodeException.unsupported(
              "cannot read " + bitsPerValue + "-bit values as integers");
    };
  }
}
