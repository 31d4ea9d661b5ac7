package dev.lancelot.engine.internal.file.write;

import dev.lancelot.engine.internal.file.codec.FastLanes;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.CompressiveEncoding;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.OutOfLineBitpacking;

/**
 * Repetition and definition levels of a mini-block chunk as Lance 7 stores them: 16-bit levels
 * bit-packed out of line ({@code OutOfLineBitpacking(16 -> Flat(W))}) with one width W for the
 * whole page. A chunk's levels are {@code floor(n / 1024)} FastLanes blocks of {@code 64 * W}
 * 16-bit words, then the remaining {@code n % 1024} levels either as one more zero-padded block,
 * when that is smaller, or as plain 16-bit words (readers tell the two apart by the buffer's
 * length, so equal sizes take the plain form).
 */
final class LevelPacker {
  private LevelPacker() {}

  /** Bits of the widest of the first {@code n} levels, at least 1. */
  static int width(short[] levels, int n) {
    int or = 0;
    for (int i = 0; i < n; i++) {
      or |= levels[i] & 0xFFFF;
    }
    return Math.max(1, 32 - Integer.numberOfLeadingZeros(or));
  }

  static CompressiveEncoding encoding(int width) {
    return CompressiveEncoding.newBuilder()
        .setOutOfLineBitpacking(
            OutOfLineBitpacking.newBuilder()
                .setUncompressedBitsPerValue(16)
                .setValues(MiniBlockBuilder.flat(width)))
        .build();
  }

  /** Levels {@code [from, from + n)} packed to {@code width} bits. */
  static byte[] pack(short[] levels, int from, int n, int width) {
    int blockWords = 64 * width;
    int whole = n / InlineBitpacker.BLOCK;
    int tail = n % InlineBitpacker.BLOCK;
    boolean packedTail = tail > blockWords;
    int words = whole * blockWords + (tail == 0 ? 0 : packedTail ? blockWords : tail);
    byte[] out = new byte[2 * words];
    long[] values = new long[InlineBitpacker.BLOCK];
    int pos = 0;
    for (int b = 0; b < whole + (packedTail ? 1 : 0); b++) {
      int start = from + b * InlineBitpacker.BLOCK;
      int count = Math.min(InlineBitpacker.BLOCK, from + n - start);
      for (int i = 0; i < InlineBitpacker.BLOCK; i++) {
        values[i] = i < count ? levels[start + i] & 0xFFFF : 0;
      }
      for (long w : FastLanes.pack(16, width, values)) {
        out[pos++] = (byte) w;
        out[pos++] = (byte) (w >>> 8);
      }
    }
    if (tail > 0 && !packedTail) {
      for (int i = from + whole * InlineBitpacker.BLOCK; i < from + n; i++) {
        out[pos++] = (byte) levels[i];
        out[pos++] = (byte) (levels[i] >>> 8);
      }
    }
    return out;
  }
}
