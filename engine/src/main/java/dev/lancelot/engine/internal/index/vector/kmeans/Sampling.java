package dev.lancelot.engine.internal.index.vector.kmeans;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;

/** Seeded sampling of distinct row indexes (Floyd's algorithm: O(k) draws, no shuffle of n). */
public final class Sampling {
  private Sampling() {}

  /** {@code k} distinct indexes in {@code [0, n)}, in ascending order. */
  public static int[] distinct(int n, int k, SplittableRandom random) {
    if (k > n || k < 0) {
      throw new IllegalArgumentException("cannot choose " + k + " of " + n);
    }
    if (k == n) {
      int[] all = new int[n];
      Arrays.setAll(all, i -> i);
      return all;
    }
    Set<Integer> chosen = new HashSet<>(k * 2);
    for (int j = n - k; j < n; j++) {
      int t = random.nextInt(j + 1);
      if (!chosen.add(t)) {
        chosen.add(j);
      }
    }
    int[] out = new int[k];
    int i = 0;
    for (int v : chosen) {
      out[i++] = v;
    }
    Arrays.sort(out);
    return out;
  }

  /** Copies the rows at {@code indexes} of a row-major block into a new array. */
  public static float[] gather(float[] data, int dim, int[] indexes) {
    float[] out = new float[indexes.length * dim];
    for (int i = 0; i < indexes.length; i++) {
      System.arraycopy(data, indexes[i] * dim, out, i * dim, dim);
    }
    return out;
  }
}
