package dev.lancelot.engine.internal.expr.eval;

import java.nio.ByteOrder;
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
    if (rows == 0) {
      return;
    }
    ArrowBuf data = vector.getDataBuffer();
    // 32- and 64-bit values are read with one bulk copy and converted in a loop without calls,
    // which
    // also keeps the cost down while the loop still runs interpreted (a JVM's first batches).
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
        int[] values = ints(data, rows);
        for (int i = 0; i < rows; i++) {
          keys[offset + i] = values[i];
        }
      }
      case UINT32 -> {
        int[] values = ints(data, rows);
        for (int i = 0; i < rows; i++) {
          keys[offset + i] = values[i] & 0xFFFFFFFFL;
        }
      }
      case INT64, DATE64, TIMESTAMP -> longs(data, rows, keys, offset);
      case UINT64 -> {
        longs(data, rows, keys, offset);
        for (int i = offset; i < offset + rows; i++) {
          keys[i] ^= Long.MIN_VALUE;
        }
      }
      case FLOAT16 -> {
        for (int i = 0; i < rows; i++) {
          int bits = data.getShort((long) i << 1);
          keys[offset + i] = bits ^ ((bits >> 15) & 0x7FFF);
        }
      }
      case FLOAT32 -> {
        int[] values = ints(data, rows);
        for (int i = 0; i < rows; i++) {
          int bits = values[i];
          keys[offset + i] = bits ^ ((bits >> 31) & Integer.MAX_VALUE);
        }
      }
      case FLOAT64 -> {
        longs(data, rows, keys, offset);
        for (int i = offset; i < offset + rows; i++) {
          long bits = keys[i];
          keys[i] = bits ^ ((bits >> 63) & Long.MAX_VALUE);
        }
      }
      default -> throw new IllegalArgumentException("column kind " + kind + " has no keys");
    }
  }

  /** The first {@code rows} little-endian 32-bit values of {@code data}, in one bulk copy. */
  private static int[] ints(ArrowBuf data, int rows) {
    int[] out = new int[rows];
    data.nioBuffer(0, Math.multiplyExact(rows, Integer.BYTES))
        .order(ByteOrder.LITTLE_ENDIAN)
        .asIntBuffer()
        .get(out);
    return out;
  }

  /** Copies the first {@code rows} little-endian 64-bit values of {@code data} to {@code out}. */
  private static void longs(ArrowBuf data, int rows, long[] out, int offset) {
    data.nioBuffer(0, Math.multiplyExact(rows, Long.BYTES))
        .order(ByteOrder.LITTLE_ENDIAN)
        .asLongBuffer()
        .get(out, offset, rows);
  }
}
