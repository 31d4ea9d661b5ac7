package dev.lancelot.engine.internal.file.codec;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * {@code count} variable-width values: value {@code i} is {@code data[off(i), off(i+1))}, where
 * {@code off(i)} is the little-endian integer of {@code offsetWidth} bytes (4 or 8) at {@code
 * offsetsPos + i * offsetWidth} in {@code offsets}. Offsets need not start at 0.
 */
public record VarValues(
    ByteBuffer data, ByteBuffer offsets, int offsetsPos, int offsetWidth, int count)
    implements Values {

  public VarValues {
    if (offsetWidth != 4 && offsetWidth != 8) {
      throw DecodeException.corrupt("offsets must be 32 or 64 bits wide, not " + (offsetWidth * 8));
    }
    if (offsetsPos < 0 || offsetsPos + (long) (count + 1) * offsetWidth > offsets.limit()) {
      throw DecodeException.corrupt(
          "a buffer of "
              + offsets.limit()
              + " bytes is too short for "
              + (count + 1)
              + " offsets of "
              + offsetWidth
              + " bytes");
    }
  }

  /** Values backed by fresh heap arrays (offsets with {@code count + 1} entries starting at 0). */
  public static VarValues wrap(byte[] data, int dataLength, int[] offsets, int count) {
    ByteBuffer off = ByteBuffer.allocate(4 * (count + 1)).order(ByteOrder.LITTLE_ENDIAN);
    off.asIntBuffer().put(offsets, 0, count + 1);
    return new VarValues(
        ByteBuffer.wrap(data, 0, dataLength).slice().order(ByteOrder.LITTLE_ENDIAN),
        off,
        0,
        4,
        count);
  }

  /** Start of value {@code i} (and end of value {@code i - 1}). */
  public long offset(int i) {
    int pos = offsetsPos + i * offsetWidth;
    return offsetWidth == 4 ? Integer.toUnsignedLong(offsets.getInt(pos)) : offsets.getLong(pos);
  }

  /** Checks that all offsets are ascending and inside the data buffer. */
  public VarValues validate() {
    long prev = offset(0);
    if (prev < 0) {
      throw DecodeException.corrupt("negative value offset " + prev);
    }
    for (int i = 1; i <= count; i++) {
      long cur = offset(i);
      if (cur < prev) {
        throw DecodeException.corrupt(
            "value offsets are not ascending (" + prev + " then " + cur + ")");
      }
      prev = cur;
    }
    if (prev > data.limit()) {
      throw DecodeException.corrupt(
          "value offset " + prev + " lies past the end of a " + data.limit() + "-byte buffer");
    }
    return this;
  }
}
