package dev.lancelot.engine.internal.file.codec;

import java.nio.ByteBuffer;

/**
 * {@code count} fixed-size lists of {@code dimension} items each. {@code items} holds {@code count
 * * dimension} values. When the items can be null, {@code validity} is a bitmap with one bit per
 * item (1 = valid, LSB first) starting at bit {@code validityBitOffset}; otherwise it is null. The
 * validity of the lists themselves comes from definition levels.
 */
public record FslValues(
    int dimension, ByteBuffer validity, long validityBitOffset, Values items, int count)
    implements Values {

  public FslValues {
    if ((long) count * dimension != items.count()) {
      throw DecodeException.corrupt(
          count
              + " lists of "
              + dimension
              + " items need "
              + ((long) count * dimension)
              + " items but "
              + items.count()
              + " were decoded");
    }
    if (validity != null
        && (validityBitOffset + (long) count * dimension + 7) / 8 > validity.limit()) {
      throw DecodeException.corrupt(
          "an item validity buffer of "
              + validity.limit()
              + " bytes is too short for "
              + ((long) count * dimension)
              + " items");
    }
  }
}
