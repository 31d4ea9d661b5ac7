package dev.lancelot.engine.vector;

/**
 * IEEE-754 half precision ("float16", Arrow's HalfFloat) held as the raw 16 bits in a {@code
 * short}. Java 17 has no half-float type, so conversion is done here: decoding uses a 65,536-entry
 * table (256 KiB, built once), encoding rounds to nearest-even.
 */
public final class Float16 {
  private static final float[] TO_FLOAT = new float[1 << 16];

  static {
    for (int bits = 0; bits < (1 << 16); bits++) {
      TO_FLOAT[bits] = decode(bits);
    }
  }

  private Float16() {}

  /** The float value of half-precision bits. Exact: every half value is a float value. */
  public static float toFloat(short bits) {
    return TO_FLOAT[bits & 0xFFFF];
  }

  /** Half-precision bits of {@code value}, rounded to nearest-even; overflow gives infinity. */
  public static short fromFloat(float value) {
    int f = Float.floatToRawIntBits(value);
    int sign = (f >>> 16) & 0x8000;
    int exp = (f >>> 23) & 0xFF;
    int mant = f & 0x7FFFFF;
    if (exp == 0xFF) {
      // Infinity stays infinity; NaN keeps a quiet NaN payload bit so it stays NaN.
      return (short) (sign | 0x7C00 | (mant != 0 ? 0x200 | (mant >>> 13) : 0));
    }
    int halfExp = exp - 127 + 15;
    if (halfExp >= 0x1F) {
      return (short) (sign | 0x7C00);
    }
    if (halfExp <= 0) {
      if (halfExp < -10) {
        return (short) sign; // too small even for a subnormal: signed zero
      }
      int full = mant | 0x800000; // restore the implicit leading one
      int shift = 14 - halfExp;
      int half = full >>> shift;
      int rest = full & ((1 << shift) - 1);
      int halfway = 1 << (shift - 1);
      if (rest > halfway || (rest == halfway && (half & 1) != 0)) {
        half++;
      }
      return (short) (sign | half);
    }
    int half = (halfExp << 10) | (mant >>> 13);
    int rest = mant & 0x1FFF;
    if (rest > 0x1000 || (rest == 0x1000 && (half & 1) != 0)) {
      half++; // may carry into the exponent, which correctly rounds up to the next binade or inf
    }
    return (short) (sign | half);
  }

  /** Converts a whole array (convenience for tests and callers holding float data). */
  public static short[] fromFloats(float[] values) {
    short[] out = new short[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = fromFloat(values[i]);
    }
    return out;
  }

  private static float decode(int bits) {
    int sign = (bits & 0x8000) << 16;
    int exp = (bits >>> 10) & 0x1F;
    int mant = bits & 0x3FF;
    if (exp == 0) {
      float magnitude = mant * 0x1p-24f; // zero or subnormal
      return sign != 0 ? -magnitude : magnitude;
    }
    if (exp == 0x1F) {
      return Float.intBitsToFloat(sign | 0x7F800000 | (mant << 13));
    }
    return Float.intBitsToFloat(sign | ((exp - 15 + 127) << 23) | (mant << 13));
  }
}
