package dev.lancelot.engine.internal.expr.eval;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;

/**
 * Decodes numeric and temporal columns into 64-bit keys whose signed order is the order filters
 * compare in, so every comparison becomes a range test on keys:
 *
 * <ul>
 *   <li>signed integers, dates, timestamps: the value itself;
 *   <li>uint8/16/32: the value (non-negative); uint64: the value with its top bit flipped;
 *   <li>floats: the IEEE bits with the magnitude bits flipped for negative numbers, which is Rust's
 *       {@code total_cmp} order used by Arrow and Lance: {@code -NaN < -inf < ... < -0.0 < +0.0 <
 *       ... < +inf < NaN}, NaNs equal only to NaNs with the same bits.
 * </ul>
 */
public final class Keys {
  private Keys() {}

  public static long ofDouble(double d) {
    long bits = Double.doubleToRawLongBits(d);
    return bits ^ ((bits >> 63) & Long.MAX_VALUE);
  }

  public static long ofFloat(float f) {
    int bits = Float.floatToRawIntBits(f);
    return bits ^ ((bits >> 31) & Integer.MAX_VALUE);
  }

  public static long ofHalf(short half) {
    int bits = half; // sign-extended
    return bits ^ ((bits >> 15) & 0x7FFF);
  }

  public static long ofUnsigned64(long raw) {
    return raw ^ Long.MIN_VALUE;
  }

  /** Keys of the first {@code rows} values of {@code vector} (null slots hold garbage keys). */
  public static long[] decode(FieldVector vector, ColumnKind kind, int rows) {
    long[] keys = new long[rows];
    decodeInto(vector, kind, rows, keys, 0);
    return keys;
  }

  /**
   * Writes the keys of the first {@code rows} values of {@code vector} to {@code keys[offset,
   * offset + rows)} (null slots get garbage keys), so a caller gathering many batches needs no
   * array per batch.
   */
  public static void decodeInto(
      FieldVector vector, ColumnKind kind, int rows, long[] keys, int offset) {
    ArrowBuf data = vector.getDataBuffer();
    switch (kind) {
      case INT8 -> {
        for (int i = 0; i < rows; i++) {
          keys[offset + i] = data.getByte(i);
        }
      }
      case UINT8 -> {
        for (int i = 0; i < rows; i++) {
          keys[offset + i] = data.getByte(i) & 0xFFL;
        }
      }
      case INT16 -> {
        for (int i = 0; i < rows; i++) {
          keys[offset + i] = data.getShort((long) i << 1);
        }
      }
      case UINT16 -> {
        for (int i = 0; i < rows; i++) {
          keys[offset + i] = data.getShort((long) i << 1) & 0xFFFFL;
        }
      }
      case INT32, DATE32 -> {
        for (int i = 0; i < rows; i++) {
          keys[offset + i] = data.getInt((long) i << 2);
        }
      }
      case UINT32 -> {
        for (int i = 0; i < rows; i++) {
          keys[offset + i] = data.getInt((long) i << 2) & 0xFFFFFFFFL;
        }
      }
      case INT64, DATE64, TIMESTAMP -> {
        for (int i = 0; i < rows; i++) {
          keys[offset + i] = data.getLong((long) i << 3);
        }
      }
      case UINT64 -> {
        for (int i = 0; i < rows; i++) {
          keys[offset + i] = data.getLong((long) i << 3) ^ Long.MIN_VALUE;
        }
      }
      case FLOAT16 -> {
        for (int i = 0; i < rows; i++) {
          int bits = data.getShort((long) i << 1);
          keys[offset + i] = bits ^ ((bits >> 15) & 0x7FFF);
        }
      }
      case FLOAT32 -> {
        for (int i = 0; i < rows; i++) {
          int bits = data.getInt((long) i << 2);
          keys[offset + i] = bits ^ ((bits >> 31) & Integer.MAX_VALUE);
        }
      }
      case FLOAT64 -> {
        for (int i = 0; i < rows; i++) {
          long bits = data.getLong((long) i << 3);
          keys[offset + i] = bits ^ ((bits >> 63) & Long.MAX_VALUE);
        }
      }
      default -> throw new IllegalArgumentException("column kind " + kind + " has no keys");
    }
  }
}
