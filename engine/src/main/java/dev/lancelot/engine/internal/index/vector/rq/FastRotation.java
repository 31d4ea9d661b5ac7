package dev.lancelot.engine.internal.index.vector.rq;

/**
 * The matrix-free random rotation of Lance's IVF_RQ indexes ({@code "rotation_type":"fast"}): a
 * vector zero-padded to the code dimension {@code D} goes through four rounds, each flipping the
 * sign of the coordinates whose bit is set in that round's {@code ceil(D/8)} sign bytes (bit {@code
 * i % 8} of byte {@code i / 8}, least significant first) and then mixing them with a Walsh–Hadamard
 * transform scaled by {@code 1/sqrt(T)}, {@code T} the largest power of two ≤ {@code D}.
 *
 * <p>When {@code D} is a power of two the transform covers every coordinate. Otherwise even rounds
 * transform the first {@code T} coordinates and odd rounds the last {@code T}, each round ending
 * with a butterfly {@code (x, y) → (x + y, x − y)} between coordinate {@code i} and {@code i + D/2}
 * for {@code i < D/2}; the result is scaled by {@code 1/4} at the end. The transform is orthogonal
 * up to that scale, so inner products and norms in the rotated space match the original's (exactly
 * when {@code D} is a power of two).
 *
 * <p>Immutable and thread-safe.
 */
public final class FastRotation implements java.io.Serializable {
  private static final long serialVersionUID = 1L;
  static final int ROUNDS = 4;

  private final int codeDim;
  private final byte[] signs;
  private final int bytesPerRound;

  private FastRotation(int codeDim, byte[] signs) {
    this.codeDim = codeDim;
    this.signs = signs;
    this.bytesPerRound = (codeDim + 7) / 8;
  }

  /**
   * A rotation of {@code codeDim} coordinates from its sign bytes ({@code 4 × ceil(codeDim / 8)}).
   *
   * @throws IllegalArgumentException if the sign bytes do not have that length
   */
  public static FastRotation of(int codeDim, byte[] signs) {
    if (codeDim < 1) {
      throw new IllegalArgumentException("code dimension " + codeDim + " is not positive");
    }
    int expected = signBytes(codeDim);
    if (signs.length != expected) {
      throw new IllegalArgumentException(
          "a fast rotation of "
              + codeDim
              + " coordinates needs "
              + expected
              + " sign bytes, not "
              + signs.length);
    }
    return new FastRotation(codeDim, signs.clone());
  }

  /**
   * A new rotation of {@code codeDim} coordinates with uniformly random sign bytes drawn from
   * {@code random}, as Lance draws them for a new index.
   */
  public static FastRotation random(int codeDim, java.util.SplittableRandom random) {
    if (codeDim < 1) {
      throw new IllegalArgumentException("code dimension " + codeDim + " is not positive");
    }
    byte[] signs = new byte[signBytes(codeDim)];
    random.nextBytes(signs);
    return new FastRotation(codeDim, signs);
  }

  /** Sign bytes a rotation of {@code codeDim} coordinates holds. */
  public static int signBytes(int codeDim) {
    return ROUNDS * ((codeDim + 7) / 8);
  }

  public int codeDim() {
    return codeDim;
  }

  /** A copy of the sign bytes. */
  public byte[] signs() {
    return signs.clone();
  }

  /**
   * Rotates {@code out} in place: its first {@code codeDim} values, the input already zero-padded.
   */
  public void rotateInPlace(float[] out) {
    int d = codeDim;
    int t = Integer.highestOneBit(d);
    float scale = (float) (1.0 / Math.sqrt(t));
    if (t == d) {
      for (int round = 0; round < ROUNDS; round++) {
        flip(out, round);
        hadamard(out, 0, d, scale);
      }
      return;
    }
    for (int round = 0; round < ROUNDS; round++) {
      flip(out, round);
      hadamard(out, round % 2 == 0 ? 0 : d - t, t, scale);
      int half = d / 2;
      for (int i = 0; i < half; i++) {
        float x = out[i];
        float y = out[i + half];
        out[i] = x + y;
        out[i + half] = x - y;
      }
    }
    for (int i = 0; i < d; i++) {
      out[i] *= 0.25f;
    }
  }

  private void flip(float[] v, int round) {
    int base = round * bytesPerRound;
    for (int i = 0; i < codeDim; i++) {
      if ((signs[base + (i >>> 3)] >>> (i & 7) & 1) != 0) {
        v[i] = -v[i];
      }
    }
  }

  /** In-place fast Walsh–Hadamard transform of {@code v[from .. from+n)}, then scaled. */
  private static void hadamard(float[] v, int from, int n, float scale) {
    for (int half = 1; half < n; half <<= 1) {
      for (int block = from; block < from + n; block += half << 1) {
        for (int i = block; i < block + half; i++) {
          float x = v[i];
          float y = v[i + half];
          v[i] = x + y;
          v[i + half] = x - y;
        }
      }
    }
    for (int i = from; i < from + n; i++) {
      v[i] *= scale;
    }
  }
}
