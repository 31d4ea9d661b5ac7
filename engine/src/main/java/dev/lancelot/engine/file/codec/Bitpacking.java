package dev.lancelot.engine.file.codec;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Lance's two bit-packing encodings, both built on {@link FastLanes} blocks of 1024 values. */
public final class Bitpacking {
  private Bitpacking() {}

  /**
   * InlineBitpacking: one chunk of at most 1024 values. Layout:
   * <pre>
   *   [T-bit word] bit width W
   *   [T-bit words x 1024*W/T] FastLanes-packed values (the tail of a short chunk is zero padding)
   * </pre>
   */
  public static FixedValues decodeInline(int typeBits, ByteBuffer chunk, int numValues) {
    if (numValues > 1024) {
      throw DecodeException.corrupt("an inline bit-packed chunk holds at most 1024 values, not " + numValues);
    }
    int bytes = typeBits / 8;
    if (chunk.limit() < bytes) {
      throw DecodeException.corrupt("inline bit-packed chunk of " + chunk.limit() + " bytes has no bit width");
    }
    long width = switch (typeBits) {
      case 8 -> Byte.toUnsignedLong(chunk.get(0));
      case 16 -> Short.toUnsignedLong(chunk.getShort(0));
      case 32 -> Integer.toUnsignedLong(chunk.getInt(0));
      case 64 -> chunk.getLong(0);
      default -> throw DecodeException.unsupported("inline bit-packing of " + typeBits + "-bit values");
    };
    if (width < 0 || width > typeBits) {
      throw DecodeException.corrupt("inline bit-packed chunk declares bit width " + width + " for "
          + typeBits + "-bit values");
    }
    ByteBuffer out = ByteBuffer.allocate(1024 * bytes).order(ByteOrder.LITTLE_ENDIAN);
    FastLanes.unpack(typeBits, (int) width, chunk, bytes, out, 0);
    return new FixedValues(out, 0, typeBits, numValues);
  }

  /**
   * OutOfLineBitpacking: a whole buffer packed with one bit width W (given by the encoding).
   * Layout: {@code floor(n/1024)} FastLanes blocks of {@code 1024*W/T} T-bit words, then, if
   * {@code n % 1024 != 0}, either one more zero-padded block or the remaining values unpacked as
   * plain T-bit words (the writer picks whichever is smaller; the buffer length tells which).
   */
  public static FixedValues decodeOutOfLine(int typeBits, int width, ByteBuffer buf, int numValues) {
    int bytes = typeBits / 8;
    if (buf.limit() % bytes != 0) {
      throw DecodeException.corrupt("out-of-line bit-packed buffer of " + buf.limit()
          + " bytes is not a whole number of " + typeBits + "-bit words");
    }
    int wordsPerBlock = (1024 * width + typeBits - 1) / typeBits;
    int totalWords = buf.limit() / bytes;
    int wholeBlocks = numValues / 1024;
    int tail = numValues % 1024;
    boolean rawTail = tail > 0 && totalWords == wholeBlocks * wordsPerBlock + tail;
    int blocksToUnpack = wholeBlocks + (tail > 0 && !rawTail ? 1 : 0);
    if ((long) blocksToUnpack * wordsPerBlock + (rawTail ? tail : 0) > totalWords) {
      throw DecodeException.corrupt("out-of-line bit-packed buffer of " + buf.limit() + " bytes is too short for "
          + numValues + " values of " + width + " bits");
    }
    ByteBuffer out = ByteBuffer.allocate(blocksToUnpack * 1024 * bytes + (rawTail ? tail * bytes : 0))
        .order(ByteOrder.LITTLE_ENDIAN);
    for (int b = 0; b < blocksToUnpack; b++) {
      FastLanes.unpack(typeBits, width, buf, b * wordsPerBlock * bytes, out, b * 1024 * bytes);
    }
    if (rawTail) {
      int src = wholeBlocks * wordsPerBlock * bytes;
      int dst = wholeBlocks * 1024 * bytes;
      for (int i = 0; i < tail * bytes; i++) {
        out.put(dst + i, buf.get(src + i));
      }
    }
    return new FixedValues(out, 0, typeBits, numValues);
  }
}
