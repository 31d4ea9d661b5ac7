package dev.lancelot.engine.internal.file.codec;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Lance's two bit-packing encodings, both built on {@link FastLanes} blocks of 1024 values. */
public final class Bitpacking {
  private Bitpacking() {}

  /**
   * InlineBitpacking: one chunk of at most 1024 values. Layout:
   *
   * <pre>
   *   [T-bit word] bit width W
   *   [T-bit words x 1024*W/T] FastLanes-packed values (the tail of a short chunk is zero padding)
   * </pre>
   */
  public static FixedValues decodeInline(int typeBits, ByteBuffer chunk, int numValues) {
    if (numValues > 1024) {
      throw DecodeException.corrupt(
          "an inline bit-packed chunk holds at most 1024 values, not " + numValues);
    }
    int bytes = typeBits / 8;
    if (chunk.limit() < bytes) {
      throw DecodeException.corrupt(
          "inline bit-packed chunk of " + chunk.limit() + " bytes has no bit width");
    }
    long width =
        switch (typeBits) {
          case 8 -> Byte.toUnsignedLong(chunk.get(0));
          case 16 -> Short.toUnsignedLong(chunk.getShort(0));
          case 32 -> Integer.toUnsignedLong(chunk.getInt(0));
          case 64 -> chunk.getLong(0);
          default ->
              throw DecodeException.unsupported(
                  "inline bit-packing of " + typeBits + "-bit values");
        };
    if (width < 0 || width > typeBits) {
      throw DecodeException.corrupt(
          "inline bit-packed chunk declares bit width "
              + width
              + " for "
              + typeBits
              + "-bit values");
    }
    int w = (int) width;
    int numWords = FastLanes.packedWords(typeBits, w);
    if (bytes + (long) numWords * bytes > chunk.limit()) {
      throw DecodeException.corrupt(
          "bit-packed block needs "
              + (numWords * bytes)
              + " bytes but only "
              + (chunk.limit() - bytes)
              + " remain");
    }
    ByteBuffer in = chunk.duplicate().order(ByteOrder.LITTLE_ENDIAN).position(bytes);
    ByteBuffer out = ByteBuffer.allocate(1024 * bytes).order(ByteOrder.LITTLE_ENDIAN);
    switch (typeBits) {
      case 32 -> {
        int[] words = new int[numWords];
        in.asIntBuffer().get(words);
        int[] values = new int[1024];
        FastLanes.unpack32(w, words, 0, values, 0);
        out.asIntBuffer().put(values);
      }
      case 64 -> {
        long[] words = new long[numWords];
        in.asLongBuffer().get(words);
        long[] values = new long[1024];
        FastLanes.unpack64(w, words, 0, values, 0);
        out.asLongBuffer().put(values);
      }
      case 16 -> {
        short[] words = new short[numWords];
        in.asShortBuffer().get(words);
        short[] values = new short[1024];
        FastLanes.unpack16(w, words, 0, values, 0);
        out.asShortBuffer().put(values);
      }
      default -> {
        byte[] words = new byte[numWords];
        in.get(words);
        FastLanes.unpack8(w, words, 0, out.array(), 0);
      }
    }
    return new FixedValues(out, 0, typeBits, numValues);
  }

  /**
   * OutOfLineBitpacking: a whole buffer packed with one bit width W (given by the encoding).
   * Layout: {@code floor(n/1024)} FastLanes blocks of {@code 1024*W/T} T-bit words, then, if {@code
   * n % 1024 != 0}, either one more zero-padded block or the remaining values unpacked as plain
   * T-bit words (the writer picks whichever is smaller; the buffer length tells which).
   */
  public static FixedValues decodeOutOfLine(
      int typeBits, int width, ByteBuffer buf, int numValues) {
    if (typeBits == 16) {
      short[] values = decodeOutOfLine16(width, buf, numValues);
      ByteBuffer out = ByteBuffer.allocate(values.length * 2).order(ByteOrder.LITTLE_ENDIAN);
      out.asShortBuffer().put(values);
      return new FixedValues(out, 0, typeBits, numValues);
    }
    int bytes = typeBits / 8;
    if (buf.limit() % bytes != 0) {
      throw DecodeException.corrupt(
          "out-of-line bit-packed buffer of "
              + buf.limit()
              + " bytes is not a whole number of "
              + typeBits
              + "-bit words");
    }
    int wordsPerBlock = (1024 * width + typeBits - 1) / typeBits;
    int totalWords = buf.limit() / bytes;
    int wholeBlocks = numValues / 1024;
    int tail = numValues % 1024;
    boolean rawTail = tail > 0 && totalWords == wholeBlocks * wordsPerBlock + tail;
    int blocksToUnpack = wholeBlocks + (tail > 0 && !rawTail ? 1 : 0);
    if ((long) blocksToUnpack * wordsPerBlock + (rawTail ? tail : 0) > totalWords) {
      throw DecodeException.corrupt(
          "out-of-line bit-packed buffer of "
              + buf.limit()
              + " bytes is too short for "
              + numValues
              + " values of "
              + width
              + " bits");
    }
    ByteBuffer out =
        ByteBuffer.allocate(blocksToUnpack * 1024 * bytes + (rawTail ? tail * bytes : 0))
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

  /**
   * OutOfLineBitpacking of 16-bit values (repetition and definition levels) decoded straight into
   * an array of exactly {@code numValues} entries.
   */
  public static short[] decodeOutOfLine16(int width, ByteBuffer buf, int numValues) {
    if (buf.limit() % 2 != 0) {
      throw DecodeException.corrupt(
          "out-of-line bit-packed buffer of "
              + buf.limit()
              + " bytes is not a whole number of 16-bit words");
    }
    FastLanes.checkWidth(16, width);
    int wordsPerBlock = (1024 * width + 15) / 16;
    int totalWords = buf.limit() / 2;
    int wholeBlocks = numValues / 1024;
    int tail = numValues % 1024;
    boolean rawTail = tail > 0 && totalWords == wholeBlocks * wordsPerBlock + tail;
    int blocksToUnpack = wholeBlocks + (tail > 0 && !rawTail ? 1 : 0);
    if ((long) blocksToUnpack * wordsPerBlock + (rawTail ? tail : 0) > totalWords) {
      throw DecodeException.corrupt(
          "out-of-line bit-packed buffer of "
              + buf.limit()
              + " bytes is too short for "
              + numValues
              + " values of "
              + width
              + " bits");
    }
    int numWords = blocksToUnpack * wordsPerBlock + (rawTail ? tail : 0);
    short[] words = new short[numWords];
    buf.duplicate().order(ByteOrder.LITTLE_ENDIAN).position(0).asShortBuffer().get(words);
    short[] out = new short[numValues];
    for (int b = 0; b < wholeBlocks; b++) {
      FastLanes.unpack16(width, words, b * wordsPerBlock, out, b * 1024);
    }
    if (tail > 0) {
      if (rawTail) {
        System.arraycopy(words, wholeBlocks * wordsPerBlock, out, wholeBlocks * 1024, tail);
      } else {
        short[] last = new short[1024];
        FastLanes.unpack16(width, words, wholeBlocks * wordsPerBlock, last, 0);
        System.arraycopy(last, 0, out, wholeBlocks * 1024, tail);
      }
    }
    return out;
  }
}
