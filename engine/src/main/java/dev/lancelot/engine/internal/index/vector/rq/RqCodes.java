package dev.lancelot.engine.internal.index.vector.rq;

/**
 * The code layouts of {@code _rabit_codes} in Lance's IVF_RQ {@code auxiliary.idx}. One row's code
 * holds one bit per rotated coordinate (bit {@code k} of byte {@code b} is coordinate {@code 8b +
 * k}, set when it is positive). A partition's codes are stored {@code "packed"} for 32-row SIMD
 * lookups: every full batch of 32 rows holds, for each code byte {@code i}, a 32-byte block whose
 * byte {@code j < 16} carries the low nibbles of rows {@code PERM[j]} (low half) and {@code PERM[j]
 * + 16} (high half), and byte {@code j + 16} their high nibbles; the rows after the last full batch
 * are stored transposed (code byte {@code i} of remainder row {@code r} at {@code i × remainder +
 * r}).
 *
 * <p>While a build gathers and moves encoded rows ({@code EncodedShard}, a segment's partitions),
 * each row is carried as one run of {@link RabitQuantizer#rowBytes()} bytes: its code bytes, then
 * its add and scale factors as little-endian float32 ({@link #rows}); {@link #split} turns a
 * partition of such rows into what the file stores.
 */
public final class RqCodes {
  /** Rows per packed batch. */
  static final int BATCH = 32;

  /** Bytes of the two factors after a row's code bytes in a carried row. */
  public static final int FACTOR_BYTES = 8;

  /** Row (within a half batch) whose nibbles byte {@code j} of a block carries. */
  private static final int[] PERM = {0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15};

  private RqCodes() {}

  /**
   * A partition's codes as stored ({@code rows × codeBytes} bytes, packed or row-major), transposed
   * to {@code out[i × rows + row]} = code byte {@code i} of {@code row}.
   */
  public static byte[] transposed(byte[] stored, int rows, int codeBytes, boolean packed) {
    if ((long) rows * codeBytes != stored.length) {
      throw new IllegalArgumentException(
          "codes length " + stored.length + " is not " + rows + " × " + codeBytes);
    }
    byte[] out = new byte[stored.length];
    if (!packed) {
      for (int row = 0; row < rows; row++) {
        for (int i = 0; i < codeBytes; i++) {
          out[i * rows + row] = stored[row * codeBytes + i];
        }
      }
      return out;
    }
    int full = rows / BATCH * BATCH;
    for (int batch = 0; batch < full / BATCH; batch++) {
      for (int i = 0; i < codeBytes; i++) {
        int block = (batch * codeBytes + i) * BATCH;
        for (int j = 0; j < 16; j++) {
          int lo = stored[block + j] & 0xFF;
          int hi = stored[block + j + 16] & 0xFF;
          int row = batch * BATCH + PERM[j];
          out[i * rows + row] = (byte) ((lo & 0x0F) | ((hi & 0x0F) << 4));
          out[i * rows + row + 16] = (byte) ((lo >>> 4) | (hi & 0xF0));
        }
      }
    }
    int remainder = rows - full;
    int base = full * codeBytes;
    for (int i = 0; i < codeBytes; i++) {
      for (int r = 0; r < remainder; r++) {
        out[i * rows + full + r] = stored[base + i * remainder + r];
      }
    }
    return out;
  }

  /**
   * Row-major codes ({@code rows × codeBytes} bytes, row after row) in the packed layout lance-core
   * 7 stores: the inverse of {@link #transposed} with {@code packed}.
   */
  public static byte[] packed(byte[] rowMajor, int rows, int codeBytes) {
    if ((long) rows * codeBytes != rowMajor.length) {
      throw new IllegalArgumentException(
          "codes length " + rowMajor.length + " is not " + rows + " × " + codeBytes);
    }
    byte[] out = new byte[rowMajor.length];
    int full = rows / BATCH * BATCH;
    for (int batch = 0; batch < full / BATCH; batch++) {
      for (int i = 0; i < codeBytes; i++) {
        int block = (batch * codeBytes + i) * BATCH;
        for (int j = 0; j < 16; j++) {
          int row = batch * BATCH + PERM[j];
          int a = rowMajor[row * codeBytes + i] & 0xFF;
          int b = rowMajor[(row + 16) * codeBytes + i] & 0xFF;
          out[block + j] = (byte) ((a & 0x0F) | (b & 0x0F) << 4);
          out[block + j + 16] = (byte) ((a >>> 4) | (b & 0xF0));
        }
      }
    }
    int remainder = rows - full;
    int base = full * codeBytes;
    for (int i = 0; i < codeBytes; i++) {
      for (int r = 0; r < remainder; r++) {
        out[base + i * remainder + r] = rowMajor[(full + r) * codeBytes + i];
      }
    }
    return out;
  }

  /** A partition's codes (row-major) and factors, as split from carried rows. */
  public record Split(byte[] codes, float[] add, float[] scale) {}

  /** Splits {@code rows} carried rows ({@code codeBytes} code bytes and the factors each). */
  public static Split split(byte[] carried, int rows, int codeBytes) {
    int width = codeBytes + FACTOR_BYTES;
    if ((long) rows * width != carried.length) {
      throw new IllegalArgumentException(
          "rows length " + carried.length + " is not " + rows + " × " + width);
    }
    byte[] codes = new byte[rows * codeBytes];
    float[] add = new float[rows];
    float[] scale = new float[rows];
    for (int row = 0; row < rows; row++) {
      System.arraycopy(carried, row * width, codes, row * codeBytes, codeBytes);
      add[row] = getFloat(carried, row * width + codeBytes);
      scale[row] = getFloat(carried, row * width + codeBytes + 4);
    }
    return new Split(codes, add, scale);
  }

  /**
   * Carried rows from a partition as stored (codes packed or row-major, as {@link #transposed}
   * takes them) and its factors: what rewriting a segment starts from.
   */
  public static byte[] rows(
      byte[] stored, float[] add, float[] scale, int codeBytes, boolean packed) {
    int rows = add.length;
    if (scale.length != rows) {
      throw new IllegalArgumentException(rows + " add factors but " + scale.length + " scale");
    }
    byte[] transposed = transposed(stored, rows, codeBytes, packed);
    int width = codeBytes + FACTOR_BYTES;
    byte[] out = new byte[rows * width];
    for (int row = 0; row < rows; row++) {
      for (int i = 0; i < codeBytes; i++) {
        out[row * width + i] = transposed[i * rows + row];
      }
      putFloat(out, row * width + codeBytes, add[row]);
      putFloat(out, row * width + codeBytes + 4, scale[row]);
    }
    return out;
  }

  static void putFloat(byte[] out, int at, float value) {
    int bits = Float.floatToRawIntBits(value);
    out[at] = (byte) bits;
    out[at + 1] = (byte) (bits >>> 8);
    out[at + 2] = (byte) (bits >>> 16);
    out[at + 3] = (byte) (bits >>> 24);
  }

  static float getFloat(byte[] in, int at) {
    return Float.intBitsToFloat(
        (in[at] & 0xFF)
            | (in[at + 1] & 0xFF) << 8
            | (in[at + 2] & 0xFF) << 16
            | (in[at + 3] & 0xFF) << 24);
  }
}
