package dev.lancelot.engine.file.codec;

import java.nio.ByteBuffer;

/**
 * The FastLanes bit-packing layout used by Lance's bitpacking encodings: 1024 values of a
 * T-bit unsigned type (T = 8, 16, 32 or 64) packed to W bits each.
 *
 * <p>The 1024 values are spread over {@code LANES = 1024 / T} lanes of T "rows" each. The value
 * of row {@code r} in lane {@code l} is input element
 * {@code ORDER[r / 8] * 16 + (r % 8) * 128 + l} with {@code ORDER = [0, 4, 2, 6, 1, 5, 3, 7]}.
 * Each lane is a little bit stream: row {@code r} occupies bits {@code [r*W, (r+1)*W)} and the
 * stream's k-th T-bit word is stored at word index {@code LANES * k + l} of the packed output,
 * which has {@code 1024 * W / T} words.
 */
public final class FastLanes {
  private static final int[] ORDER = {0, 4, 2, 6, 1, 5, 3, 7};

  private FastLanes() {}

  /** Number of T-bit words that hold 1024 values packed to {@code width} bits. */
  public static int packedWords(int typeBits, int width) {
    return 1024 * width / typeBits;
  }

  /**
   * Unpacks 1024 values of {@code width} bits from {@code src} (packed T-bit little-endian words
   * starting at byte {@code srcPos}) into {@code dst} as T-bit little-endian values starting at
   * byte {@code dstPos}.
   */
  public static void unpack(int typeBits, int width, ByteBuffer src, int srcPos, ByteBuffer dst, int dstPos) {
    int lanes = 1024 / typeBits;
    int bytes = typeBits / 8;
    if (width == 0) {
      for (int i = 0; i < 1024 * bytes; i++) {
        dst.put(dstPos + i, (byte) 0);
      }
      return;
    }
    if (width > typeBits) {
      throw DecodeException.corrupt("bit width " + width + " exceeds the " + typeBits + "-bit value type");
    }
    int numWords = packedWords(typeBits, width);
    if (srcPos + (long) numWords * bytes > src.limit()) {
      throw DecodeException.corrupt("bit-packed block needs " + (numWords * bytes) + " bytes but only "
          + (src.limit() - srcPos) + " remain");
    }
    long[] words = new long[numWords];
    readWords(typeBits, src, srcPos, words);
    long mask = width == 64 ? -1L : (1L << width) - 1;
    switch (typeBits) {
      case 64 -> {
        for (int lane = 0; lane < lanes; lane++) {
          for (int row = 0; row < 64; row++) {
            long v = extract(words, lanes, lane, row, width, 64, mask);
            dst.putLong(dstPos + 8 * index(row, lane), v);
          }
        }
      }
      case 32 -> {
        for (int lane = 0; lane < lanes; lane++) {
          for (int row = 0; row < 32; row++) {
            long v = extract(words, lanes, lane, row, width, 32, mask);
            dst.putInt(dstPos + 4 * index(row, lane), (int) v);
          }
        }
      }
      case 16 -> {
        for (int lane = 0; lane < lanes; lane++) {
          for (int row = 0; row < 16; row++) {
            long v = extract(words, lanes, lane, row, width, 16, mask);
            dst.putShort(dstPos + 2 * index(row, lane), (short) v);
          }
        }
      }
      case 8 -> {
        for (int lane = 0; lane < lanes; lane++) {
          for (int row = 0; row < 8; row++) {
            long v = extract(words, lanes, lane, row, width, 8, mask);
            dst.put(dstPos + index(row, lane), (byte) v);
          }
        }
      }
      default -> throw DecodeException.unsupported("bit-packing of " + typeBits + "-bit values");
    }
  }

  private static long extract(long[] words, int lanes, int lane, int row, int width, int typeBits, long mask) {
    int bit = row * width;
    int k = bit / typeBits;
    int shift = bit % typeBits;
    long v = words[lanes * k + lane] >>> shift;
    if (shift + width > typeBits) {
      v |= words[lanes * (k + 1) + lane] << (typeBits - shift);
    }
    return v & mask;
  }

  private static int index(int row, int lane) {
    return ORDER[row >>> 3] * 16 + (row & 7) * 128 + lane;
  }

  private static void readWords(int typeBits, ByteBuffer src, int pos, long[] out) {
    switch (typeBits) {
      case 64 -> {
        for (int i = 0; i < out.length; i++) {
          out[i] = src.getLong(pos + 8 * i);
        }
      }
      case 32 -> {
        for (int i = 0; i < out.length; i++) {
          out[i] = Integer.toUnsignedLong(src.getInt(pos + 4 * i));
        }
      }
      case 16 -> {
        for (int i = 0; i < out.length; i++) {
          out[i] = Short.toUnsignedLong(src.getShort(pos + 2 * i));
        }
      }
      default -> {
        for (int i = 0; i < out.length; i++) {
          out[i] = Byte.toUnsignedLong(src.get(pos + i));
        }
      }
    }
  }

  /**
   * Packs 1024 values ({@code values[i]}, unsigned, at most {@code width} bits each) into
   * {@link #packedWords} T-bit words, the inverse of {@link #unpack}.
   */
  public static long[] pack(int typeBits, int width, long[] values) {
    int lanes = 1024 / typeBits;
    long[] words = new long[packedWords(typeBits, width)];
    if (width == 0) {
      return words;
    }
    long typeMask = typeBits == 64 ? -1L : (1L << typeBits) - 1;
    long mask = width == 64 ? -1L : (1L << width) - 1;
    for (int lane = 0; lane < lanes; lane++) {
      for (int row = 0; row < typeBits; row++) {
        long v = values[index(row, lane)] & mask;
        int bit = row * width;
        int k = bit / typeBits;
        int shift = bit % typeBits;
        words[lanes * k + lane] |= (v << shift) & typeMask;
        if (shift + width > typeBits) {
          words[lanes * (k + 1) + lane] |= v >>> (typeBits - shift);
        }
      }
    }
    return words;
  }
}
