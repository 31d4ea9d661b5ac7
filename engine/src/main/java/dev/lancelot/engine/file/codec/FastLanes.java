package dev.lancelot.engine.file.codec;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

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
  public static void unpack(int typeBits, int width, ByteBuffer src, int srcPos, ByteBuffer dst, int dstPos) {
    if (typeBits != 8 && typeBits != 16 && typeBits != 32 && typeBits != 64) {
      throw DecodeException.unsupported("bit-packing of " + typeBits + "-bit values");
    }
    if (width > typeBits || width < 0) {
      throw DecodeException.corrupt("bit width " + width + " does not fit the " + typeBits + "-bit value type");
    }
    int bytes = typeBits / 8;
    int numWords = packedWords(typeBits, width);
    if (srcPos + (long) numWords * bytes > src.limit()) {
      throw DecodeException.corrupt("bit-packed block needs " + (numWords * bytes) + " bytes but only "
          + (src.limit() - srcPos) + " remain");
    }
    ByteBuffer in = src.duplicate().order(ByteOrder.LITTLE_ENDIAN).position(srcPos);
    ByteBuffer out = dst.duplicate().order(ByteOrder.LITTLE_ENDIAN).position(dstPos);
    if (typeBits == 64) {
      long[] words = new long[numWords];
      in.asLongBuffer().get(words);
      long[] values = new long[1024];
      unpack64(width, words, values);
      out.asLongBuffer().put(values);
      return;
    }
    int[] words = new int[numWords];
    switch (typeBits) {
      case 32 -> in.asIntBuffer().get(words);
      case 16 -> {
        for (int i = 0; i < numWords; i++) {
          words[i] = Short.toUnsignedInt(src.getShort(srcPos + 2 * i));
        }
      }
      default -> {
        for (int i = 0; i < numWords; i++) {
          words[i] = Byte.toUnsignedInt(src.get(srcPos + i));
        }
      }
    }
    int[] values = new int[1024];
    unpack32(typeBits, width, words, values);
    switch (typeBits) {
      case 32 -> out.asIntBuffer().put(values);
      case 16 -> {
        for (int i = 0; i < 1024; i++) {
          dst.putShort(dstPos + 2 * i, (short) values[i]);
        }
      }
      default -> {
        for (int i = 0; i < 1024; i++) {
          dst.put(dstPos + i, (byte) values[i]);
        }
      }
    }
  }

  /** Unpacks 64-bit lanes, walking each lane's bit stream once without divisions. */
  static void unpack64(int width, long[] words, long[] out) {
    if (width == 0) {
      Arrays.fill(out, 0L);
      return;
    }
    final int lanes = 16;
    final long mask = width == 64 ? -1L : (1L << width) - 1;
    for (int lane = 0; lane < lanes; lane++) {
      int k = 0;
      int shift = 0;
      long cur = words[lane];
      for (int row = 0; row < 64; row++) {
        long v = cur >>> shift;
        int next = shift + width;
        if (next >= 64) {
          k++;
          if (k < width) {
            cur = words[lanes * k + lane];
            if (next > 64) {
              v |= cur << (64 - shift);
            }
          }
          next -= 64;
        }
        out[BASE_64[row] + lane] = v & mask;
        shift = next;
      }
    }
  }

  /** Unpacks 8-, 16- or 32-bit lanes (words zero-extended into ints). */
  static void unpack32(int typeBits, int width, int[] words, int[] out) {
    if (width == 0) {
      Arrays.fill(out, 0);
      return;
    }
    final int lanes = 1024 / typeBits;
    final int mask = width == 32 ? -1 : (1 << width) - 1;
    final int[] base = typeBits == 32 ? BASE_32 : typeBits == 16 ? BASE_16 : BASE_8;
    for (int lane = 0; lane < lanes; lane++) {
      int k = 0;
      int shift = 0;
      int cur = words[lane];
      for (int row = 0; row < typeBits; row++) {
        int v = cur >>> shift;
        int next = shift + width;
        if (next >= typeBits) {
          k++;
          if (k < width) {
            cur = words[lanes * k + lane];
            if (next > typeBits) {
              v |= cur << (typeBits - shift);
            }
          }
          next -= typeBits;
        }
        out[base[row] + lane] = v & mask;
        shift = next;
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
