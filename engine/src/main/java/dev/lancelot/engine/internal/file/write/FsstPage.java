package dev.lancelot.engine.internal.file.write;

/**
 * FSST compression of one page of strings as Lance 7 applies it (mini-block and full-zip pages
 * alike): one symbol table per page ({@link FsstTable}), built from a sample of the page and stored
 * in the page's {@code Fsst} encoding; the page's values are then its compressed values.
 *
 * <p>Lance 7 chooses FSST for a page of strings (not binary, no general compression asked for)
 * whose longest value has at least 5 bytes and whose values and offsets take at least 32 KiB; it
 * compresses only when the values alone take 32 KiB, and otherwise keeps the {@code Fsst} encoding
 * with a table that turns compression off and the values as they are.
 */
final class FsstPage {
  static final int MIN_MAX_LENGTH = 5;
  static final long MIN_BYTES = 32 * 1024;

  /** Bytes of sample the table is built from, in pieces of at most {@link #SAMPLE_PIECE}. */
  static final int SAMPLE_BYTES = 16 * 1024;

  static final int SAMPLE_PIECE = 512;

  /** The serialized symbol table. */
  final byte[] table;

  /** The compressed values, or null when the page keeps its values as they are. */
  final byte[] data;

  /** Start of each compressed value in {@link #data}, then the end ({@code n + 1} entries). */
  final long[] offsets;

  private FsstPage(byte[] table, byte[] data, long[] offsets) {
    this.table = table;
    this.data = data;
    this.offsets = offsets;
  }

  /**
   * The FSST page of items {@code [first, first + n)} (item i's bytes end at {@code ends[i]} in
   * {@code data}, item 0 starts at 0), or null when Lance would not use FSST for it.
   */
  static FsstPage choose(byte[] data, long[] ends, int first, int n, int offsetBytes) {
    if (n == 0) {
      return null;
    }
    long begin = first == 0 ? 0 : ends[first - 1];
    long bytes = ends[first + n - 1] - begin;
    if (bytes + (long) offsetBytes * (n + 1) < MIN_BYTES) {
      return null;
    }
    long prev = begin;
    long maxLength = 0;
    for (int i = first; i < first + n; i++) {
      maxLength = Math.max(maxLength, ends[i] - prev);
      prev = ends[i];
    }
    if (maxLength < MIN_MAX_LENGTH) {
      return null;
    }
    if (bytes < MIN_BYTES) {
      return new FsstPage(FsstTable.serializedOff(), null, null);
    }
    FsstTable table = sampleTable(data, ends, first, n);
    byte[] out = new byte[(int) Math.min(Integer.MAX_VALUE - 16, 2 * bytes + 16)];
    long[] offsets = new long[n + 1];
    int op = 0;
    int start = (int) begin;
    for (int i = 0; i < n; i++) {
      int end = (int) ends[first + i];
      op = table.compress(data, start, end, out, op);
      offsets[i + 1] = op;
      start = end;
    }
    return new FsstPage(table.serialize(), java.util.Arrays.copyOf(out, op), offsets);
  }

  /**
   * The table built from a sample of the page: pieces of up to {@link #SAMPLE_PIECE} bytes from the
   * start of values picked at random (a fixed seed, so a page always gets the same table) until the
   * sample holds {@link #SAMPLE_BYTES}.
   */
  private static FsstTable sampleTable(byte[] data, long[] ends, int first, int n) {
    int cap = 64;
    int[] starts = new int[cap];
    int[] stops = new int[cap];
    int count = 0;
    long total = 0;
    long seed = 0x5EED_F557L;
    for (int tries = 0; total < SAMPLE_BYTES && tries < 4 * n + 64; tries++) {
      seed += 0x9E3779B97F4A7C15L;
      long z = seed;
      z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
      z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
      z ^= z >>> 31;
      int i = first + (int) Math.floorMod(z, (long) n);
      long s = i == 0 ? 0 : ends[i - 1];
      long e = Math.min(ends[i], s + SAMPLE_PIECE);
      if (e == s) {
        continue;
      }
      if (count == cap) {
        cap *= 2;
        starts = java.util.Arrays.copyOf(starts, cap);
        stops = java.util.Arrays.copyOf(stops, cap);
      }
      starts[count] = (int) s;
      stops[count] = (int) e;
      count++;
      total += e - s;
    }
    return FsstTable.build(data, starts, stops, count);
  }
}
