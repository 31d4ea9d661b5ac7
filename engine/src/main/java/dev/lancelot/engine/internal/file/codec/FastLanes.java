package dev.lancelot.engine.internal.file.codec;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The FastLanes bit-packing layout used by Lance's bitpacking encodings: 1024 values of a T-bit
 * unsigned type (T = 8, 16, 32 or 64) packed to W bits each.
 *
 * <p>The 1024 values are spread over {@code LANES = 1024 / T} lanes of T "rows" each. The value of
 * row {@code r} in lane {@code l} is input element {@code ORDER[r / 8] * 16 + (r % 8) * 128 + l}
 * with {@code ORDER = [0, 4, 2, 6, 1, 5, 3, 7]}. Each lane is a little bit stream: row {@code r}
 * occupies bits {@code [r*W, (r+1)*W)} and the stream's k-th T-bit word is stored at word index
 * {@code LANES * k + l} of the packed output, which has {@code 1024 * W / T} words.
 */
public final class FastLanes {
  private static final int[] ORDER = {0, 4, 2, 6, 1, 5, 3, 7};
  private static final int[] BASE_64 = bases(64);
  private static final int[] BASE_32 = bases(32);
  private static final int[] BASE_16 = bases(16);
  private static final int[] BASE_8 = bases(8);

  private FastLanes() {}

  /** Number of T-bit words that hold 1024 values packed to {@code width} bits. */
  public static int packedWords(int typeBits, int width) {
    return 1024 * width / typeBits;
  }

  private static int index(int row, int lane) {
    return ORDER[row >>> 3] * 16 + (row & 7) * 128 + lane;
  }

  private static int[] bases(int typeBits) {
    int[] b = new int[typeBits];
    for (int row = 0; row < typeBits; row++) {
      b[row] = index(row, 0);
    }
    return b;
  }

  /**
   * Unpacks 1024 values of {@code width} bits from {@code src} (packed T-bit little-endian words
   * starting at byte {@code srcPos}) into {@code dst} as T-bit little-endian values starting at
   * byte {@code dstPos}.
   */
  public static void unpack(
      int typeBits, int width, ByteBuffer src, int srcPos, ByteBuffer dst, int dstPos) {
    if (typeBits != 8 && typeBits != 16 && typeBits != 32 && typeBits != 64) {
      throw DecodeException.unsupported("bit-packing of " + typeBits + "-bit values");
    }
    checkWidth(typeBits, width);
    int bytes = typeBits / 8;
    int numWords = packedWords(typeBits, width);
    if (srcPos + (long) numWords * bytes > src.limit()) {
      throw DecodeException.corrupt(
          "bit-packed block needs "
              + (numWords * bytes)
              + " bytes but only "
              + (src.limit() - srcPos)
              + " remain");
    }
    ByteBuffer in = src.duplicate().order(ByteOrder.LITTLE_ENDIAN).position(srcPos);
    ByteBuffer out = dst.duplicate().order(ByteOrder.LITTLE_ENDIAN).position(dstPos);
    switch (typeBits) {
      case 64 -> {
        long[] words = new long[numWords];
        in.asLongBuffer().get(words);
        long[] values = new long[1024];
        unpack64(width, words, 0, values, 0);
        out.asLongBuffer().put(values);
      }
      case 32 -> {
        int[] words = new int[numWords];
        in.asIntBuffer().get(words);
        int[] values = new int[1024];
        unpack32(width, words, 0, values, 0);
        out.asIntBuffer().put(values);
      }
      case 16 -> {
        short[] words = new short[numWords];
        in.asShortBuffer().get(words);
        short[] values = new short[1024];
        unpack16(width, words, 0, values, 0);
        out.asShortBuffer().put(values);
      }
      default -> {
        byte[] words = new byte[numWords];
        in.get(words);
        byte[] values = new byte[1024];
        unpack8(width, words, 0, values, 0);
        out.put(values);
      }
    }
  }

  static void checkWidth(int typeBits, int width) {
    if (width > typeBits || width < 0) {
      throw DecodeException.corrupt(
          "bit width " + width + " does not fit the " + typeBits + "-bit value type");
    }
  }

  // The unpack routines below walk the packed block row by row: row r of every lane starts at the
  // same bit offset r*W, so the word index and shift are computed once per row and the innermost
  // loop runs over the lanes, contiguous in both the packed words and the output (and is
  // vectorised by the JIT). A row whose bits straddle two words ORs in the next word's low bits.

  /**
   * Unpacks one block of 64-bit lanes: {@code packedWords(64, width)} words from {@code words} at
   * {@code wordsPos} into 1024 values of {@code out} at {@code outPos}.
   */
  public static void unpack64(int width, long[] words, int wordsPos, long[] out, int outPos) {
    checkWidth(64, width);
    if (width == 0) {
      Arrays.fill(out, outPos, outPos + 1024, 0L);
      return;
    }
    final int lanes = 16;
    final long mask = width == 64 ? -1L : (1L << width) - 1;
    for (int row = 0; row < 64; row++) {
      int bit = row * width;
      int a = wordsPos + (bit >>> 6) * lanes;
      int shift = bit & 63;
      int o = outPos + BASE_64[row];
      if (shift + width <= 64) {
        for (int l = 0; l < lanes; l++) {
          out[o + l] = (words[a + l] >>> shift) & mask;
        }
      } else {
        int b = a + lanes;
        int back = 64 - shift;
        for (int l = 0; l < lanes; l++) {
          out[o + l] = ((words[a + l] >>> shift) | (words[b + l] << back)) & mask;
        }
      }
    }
  }

  /**
   * Unpacks one block of 32-bit lanes: {@code packedWords(32, width)} words from {@code words} at
   * {@code wordsPos} into 1024 values of {@code out} at {@code outPos}.
   */
  public static void unpack32(int width, int[] words, int wordsPos, int[] out, int outPos) {
    checkWidth(32, width);
    if (width == 0) {
      Arrays.fill(out, outPos, outPos + 1024, 0);
      return;
    }
    final int lanes = 32;
    final int mask = width == 32 ? -1 : (1 << width) - 1;
    for (int row = 0; row < 32; row++) {
      int bit = row * width;
      int a = wordsPos + (bit >>> 5) * lanes;
      int shift = bit & 31;
      int o = outPos + BASE_32[row];
      if (shift + width <= 32) {
        for (int l = 0; l < lanes; l++) {
          out[o + l] = (words[a + l] >>> shift) & mask;
        }
      } else {
        int b = a + lanes;
        int back = 32 - shift;
        for (int l = 0; l < lanes; l++) {
          out[o + l] = ((words[a + l] >>> shift) | (words[b + l] << back)) & mask;
        }
      }
    }
  }

  /**
   * Unpacks one block of 16-bit lanes: {@code packedWords(16, width)} words from {@code words} at
   * {@code wordsPos} into 1024 values of {@code out} at {@code outPos}.
   */
  public static void unpack16(int width, short[] words, int wordsPos, short[] out, int outPos) {
    checkWidth(16, width);
    if (width == 0) {
      Arrays.fill(out, outPos, outPos + 1024, (short) 0);
      return;
    }
    final int lanes = 64;
    final int mask = (1 << width) - 1;
    for (int row = 0; row < 16; row++) {
      int bit = row * width;
      int a = wordsPos + (bit >>> 4) * lanes;
      int shift = bit & 15;
      int o = outPos + BASE_16[row];
      if (shift + width <= 16) {
        for (int l = 0; l < lanes; l++) {
          out[o + l] = (short) (((words[a + l] & 0xFFFF) >>> shift) & mask);
        }
      } else {
        int b = a + lanes;
        int back = 16 - shift;
        for (int l = 0; l < lanes; l++) {
          out[o + l] =
              (short) ((((words[a + l] & 0xFFFF) >>> shift) | (words[b + l] << back)) & mask);
        }
      }
    }
  }

  /**
   * Unpacks one block of 8-bit lanes: {@code packedWords(8, width)} words from {@code words} at
   * {@code wordsPos} into 1024 values of {@code out} at {@code outPos}.
   */
  public static void unpack8(int width, byte[] words, int wordsPos, byte[] out, int outPos) {
    checkWidth(8, width);
    if (width == 0) {
      Arrays.fill(out, outPos, outPos + 1024, (byte) 0);
      return;
    }
    final int lanes = 128;
    final int mask = (1 << width) - 1;
    for (int row = 0; row < 8; row++) {
      int bit = row * width;
      int a = wordsPos + (bit >>> 3) * lanes;
      int shift = bit & 7;
      int o = outPos + BASE_8[row];
      if (shift + width <= 8) {
        for (int l = 0; l < lanes; l++) {
          out[o + l] = (byte) (((words[a + l] & 0xFF) >>> shift) & mask);
        }
      } else {
        int b = a + lanes;
        int back = 8 - shift;
        for (int l = 0; l < lanes; l++) {
          out[o + l] = (byte) ((((words[a + l] & 0xFF) >>> shift) | (words[b + l] << back)) & mask);
        }
      }
    }
  }

  /**
   * Packs 1024 values ({@code values[i]}, unsigned, at most {@code width} bits each) into {@link
   * #packedWords} T-bit words, the inverse of {@link #unpack}.
   */
  public static long[] pack(int typeBits, int width, long[] values) {
    int lanes = 1024 / typeBits;
    long[] words = new long[packedWords(typeBits, width)];
    if (width == 0) {
      return words;
    }
    long typeMask = typeBits == 64 ? -1L : (1L << typeBits) - 1;
    long mask = width == 64 ? -1L : (1L << width) - 1;
    // Row by row, all lanes at once: the lanes of a row are consecutive values and words.
    for (int row = 0; row < typeBits; row++) {
      int bit = row * width;
      int a = (bit / typeBits) * lanes;
      int shift = bit % typeBits;
      int o = index(row, 0);
      if (shift + width <= typeBits) {
        for (int l = 0; l < lanes; l++) {
          words[a + l] |= (values[o + l] & mask) << shift;
        }
      } else {
        int b = a + lanes;
        int back = typeBits - shift;
        for (int l = 0; l < lanes; l++) {
          long v = values[o + l] & mask;
          words[a + l] |= (v << shift) & typeMask;
          words[b + l] |= v >>> back;
        }
      }
    }
    return words;
  }
}
