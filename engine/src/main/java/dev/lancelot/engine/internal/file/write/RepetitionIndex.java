package dev.lancelot.engine.internal.file.write;

/**
 * Byte-packing of full-zip repetition indices: the narrowest of 1, 2, 4, 8 bytes fitting the
 * maximum.
 */
final class RepetitionIndex {
  private RepetitionIndex() {}

  static byte[] bytepack(long[] values) {
    long max = 0;
    for (long v : values) {
      max = Math.max(max, v);
    }
    int width = max <= 0xFFL ? 1 : max <= 0xFFFFL ? 2 : max <= 0xFFFFFFFFL ? 4 : 8;
    byte[] out = new byte[values.length * width];
    for (int i = 0; i < values.length; i++) {
      for (int b = 0; b < width; b++) {
        out[i * width + b] = (byte) (values[i] >>> (8 * b));
      }
    }
    return out;
  }
}
