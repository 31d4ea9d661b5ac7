package dev.lancelot.engine.internal.query.exec;

import java.io.Serializable;
import java.util.Arrays;

/**
 * One unit's candidates for one query vector: row addresses with their approximate distance (what
 * the index scored) and exact distance (from the original vector; NaN when not computed). Flat
 * search fills both with the exact distance. Parallel arrays; small and serializable.
 */
public record Candidates(long[] rowAddresses, float[] approx, float[] exact)
    implements Serializable {
  public static final Candidates EMPTY = new Candidates(new long[0], new float[0], new float[0]);

  public Candidates {
    if (rowAddresses.length != approx.length || rowAddresses.length != exact.length) {
      throw new IllegalArgumentException("Candidate arrays differ in length");
    }
  }

  public int size() {
    return rowAddresses.length;
  }

  /** Exact-distance candidates (flat search): both distances are the exact one. */
  public static Candidates exact(long[] rows, float[] distances) {
    return new Candidates(rows, distances, distances);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Candidates c
        && Arrays.equals(rowAddresses, c.rowAddresses)
        && Arrays.equals(approx, c.approx)
        && Arrays.equals(exact, c.exact);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(rowAddresses);
  }

  @Override
  public String toString() {
    return "Candidates" + Arrays.toString(rowAddresses);
  }
}
