package dev.lancelot.engine.internal.index.vector.pq;

/**
 * Row-major ↔ transposed PQ codes. Lance stores a partition's codes transposed (column-major,
 * {@code "transposed": true} in the storage metadata): {@code codes[s * rows + row]} is the code of
 * sub-vector {@code s} of row {@code row}, so a scan reads each sub-space's codes contiguously.
 */
public final class PqCodes {
  private PqCodes() {}

  /** Row-major {@code [rows, m]} to transposed {@code [m, rows]}. */
  public static byte[] transpose(byte[] rowMajor, int rows, int m) {
    checkLength(rowMajor.length, rows, m);
    byte[] out = new byte[rows * m];
    for (int r = 0; r < rows; r++) {
      for (int s = 0; s < m; s++) {
        out[s * rows + r] = rowMajor[r * m + s];
      }
    }
    return out;
  }

  /** Transposed {@code [m, rows]} back to row-major {@code [rows, m]}. */
  public static byte[] untranspose(byte[] transposed, int rows, int m) {
    checkLength(transposed.length, rows, m);
    byte[] out = new byte[rows * m];
    for (int s = 0; s < m; s++) {
      for (int r = 0; r < rows; r++) {
        out[r * m + s] = transposed[s * rows + r];
      }
    }
    return out;
  }

  private static void checkLength(int length, int rows, int m) {
    if ((long) rows * m != length) {
      throw new IllegalArgumentException(
          "codes length " + length + " is not " + rows + " rows × " + m);
    }
  }
}
