package dev.lancelot.engine.internal.file.write;

import dev.lancelot.engine.internal.file.codec.FastLanes;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.CompressiveEncoding;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.InlineBitpacking;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Lance's {@code InlineBitpacking} mini-block encoding of 8/16/32/64-bit values: each chunk of at
 * most 1024 values is one buffer holding its bit width W as one T-bit word, then the 1024 values (a
 * short chunk padded with zeros) packed to W bits in the FastLanes layout that {@link
 * dev.lancelot.engine.internal.file.codec.FastLanes} reads. Values are packed as unsigned bit
 * patterns (negative integers and most floats keep all their bits); null items count as 0.
 *
 * <p>Lance 7 chooses it for a page of fixed-width values when the packed chunks, width words
 * included, take fewer bytes than the raw values (its {@code BitWidth} statistic per 1024 values);
 * {@link #smaller} makes that estimate.
 */
final class InlineBitpacker {
  static final int BLOCK = 1024;
  private static final VarHandle SHORT =
      MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private InlineBitpacker() {}

  /** Whether values of {@code bytes} bytes can be bit-packed (8, 16, 32 or 64 bits). */
  static boolean applies(int bytes) {
    return bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8;
  }

  static CompressiveEncoding encoding(int bytes) {
    return CompressiveEncoding.newBuilder()
        .setInlineBitpacking(InlineBitpacking.newBuilder().setUncompressedBitsPerValue(bytes * 8L))
        .build();
  }

  /**
   * Whether items {@code [first, first + n)} of {@code data} ({@code bytes} each) take fewer bytes
   * bit-packed in chunks of 1024 than raw.
   */
  static boolean smaller(byte[] data, int first, int n, int bytes, Validity validity) {
    int typeBits = bytes * 8;
    long words = 0;
    for (int c = 0; c < n; c += BLOCK) {
      int w = width(data, first + c, Math.min(BLOCK, n - c), bytes, validity);
      words += 1 + (long) BLOCK * w / typeBits;
    }
    return words < n;
  }

  /** Bits of the widest value of items {@code [start, start + count)} (0 when all are 0). */
  static int width(byte[] data, int start, int count, int bytes, Validity validity) {
    long or = 0;
    int end = start + count;
    if (validity.nullCount() == 0) {
      switch (bytes) {
        case 1 -> {
          for (int i = start; i < end; i++) {
            or |= data[i] & 0xFFL;
          }
        }
        case 2 -> {
          for (int i = start; i < end; i++) {
            or |= (short) SHORT.get(data, i * 2) & 0xFFFFL;
          }
        }
        case 4 -> {
          for (int i = start; i < end; i++) {
            or |= (int) INT.get(data, i * 4) & 0xFFFFFFFFL;
          }
        }
        default -> {
          for (int i = start; i < end; i++) {
            or |= (long) LONG.get(data, i * 8);
          }
        }
      }
    } else {
      for (int i = start; i < end; i++) {
        or |= validity.isNull(i) ? 0 : value(data, i, bytes);
      }
    }
    return 64 - Long.numberOfLeadingZeros(or);
  }

  private static long value(byte[] data, int i, int bytes) {
    return switch (bytes) {
      case 1 -> data[i] & 0xFFL;
      case 2 -> (short) SHORT.get(data, i * 2) & 0xFFFFL;
      case 4 -> (int) INT.get(data, i * 4) & 0xFFFFFFFFL;
      default -> (long) LONG.get(data, i * 8);
    };
  }

  /** The chunk buffer of items {@code [start, start + count)}, {@code count <= 1024}. */
  static ByteSlice chunk(byte[] data, int start, int count, int bytes, Validity validity) {
    int typeBits = bytes * 8;
    int w = width(data, start, count, bytes, validity);
    long[] values = new long[BLOCK];
    boolean nulls = validity.nullCount() > 0;
    for (int i = 0; i < count; i++) {
      values[i] = nulls && validity.isNull(start + i) ? 0 : value(data, start + i, bytes);
    }
    long[] words = FastLanes.pack(typeBits, w, values);
    byte[] out = new byte[(1 + words.length) * bytes];
    put(out, 0, w, bytes);
    for (int k = 0; k < words.length; k++) {
      put(out, (k + 1) * bytes, words[k], bytes);
    }
    return ByteSlice.of(out);
  }

  private static void put(byte[] out, int pos, long v, int bytes) {
    switch (bytes) {
      case 1 -> out[pos] = (byte) v;
      case 2 -> SHORT.set(out, pos, (short) v);
      case 4 -> INT.set(out, pos, (int) v);
      default -> LONG.set(out, pos, v);
    }
  }
}
