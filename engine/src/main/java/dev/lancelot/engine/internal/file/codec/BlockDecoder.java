package dev.lancelot.engine.internal.file.codec;

import java.nio.ByteBuffer;

/** Decodes one self-contained buffer (repetition/definition levels, dictionaries). */
@FunctionalInterface
public interface BlockDecoder {
  Values decode(ByteBuffer buffer, int numValues);

  /**
   * Decodes {@code numValues} 16-bit repetition or definition levels into an array of exactly that
   * length.
   */
  default short[] decodeLevels(ByteBuffer buffer, int numValues) {
    return toLevels(decode(buffer, numValues), numValues);
  }

  /** The first {@code n} values of decoded 16-bit levels, copied into an array. */
  static short[] toLevels(Values decoded, int n) {
    if (!(decoded instanceof FixedValues f) || f.bitsPerValue() != 16 || f.count() < n) {
      throw DecodeException.corrupt(
          "repetition/definition levels must decode to " + n + " 16-bit values");
    }
    short[] out = new short[n];
    f.data().asShortBuffer().get(f.offset() / 2, out, 0, n);
    return out;
  }
}
