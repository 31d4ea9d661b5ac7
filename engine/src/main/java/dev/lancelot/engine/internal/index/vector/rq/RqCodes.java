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
 */
public final class RqCodes {
  /** Rows per packed batch. */
  static final int BATCH = 32;

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
}
