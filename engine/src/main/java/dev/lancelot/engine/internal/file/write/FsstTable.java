package dev.lancelot.engine.internal.file.write;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * An FSST symbol table (Boncz, Neumann, Leis: "FSST: Fast Random Access String Compression", VLDB
 * 2020) and the greedy compressor that uses it: up to 255 symbols of 1 to 8 bytes, each written as
 * its one-byte code; a byte no symbol covers is written as the escape code 255 followed by the
 * byte.
 *
 * <p>Construction follows the paper's evolutionary algorithm: starting from an empty table, each
 * generation compresses a sample with the current table, counting how often each symbol (or escaped
 * byte) occurs and how often each pair of consecutive symbols occurs; the next table holds the 255
 * candidates with the highest gain (occurrences times length, single bytes weighted up), the
 * candidates being the symbols themselves, the concatenations of pairs (cut to 8 bytes) and each
 * symbol extended by the next byte. There are five generations, each over the whole sample; the
 * count a candidate needs grows with them as the paper's sample fraction does (8/128 up to 128/128
 * of 5), the last one only measures, and the table that saved the most bytes is kept.
 *
 * <p>Matching finds the longest symbol at a position: symbols of 3 to 8 bytes hang in lists by a
 * hash of their first three bytes, longest first; a 65,536-entry table gives the best 1- or 2-byte
 * match for each two-byte prefix. Values are read 8 bytes at a time; no object is allocated per
 * byte.
 */
final class FsstTable {
  static final int ESCAPE = 255;
  static final int MAX_SYMBOLS = 255;

  /** Bytes of the serialized table Lance stores: header, 256 symbol words, 256 lengths. */
  static final int SERIALIZED_BYTES = 8 + 256 * 8 + 256;

  private static final long MAGIC = 0x46535354L;
  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /** Codes 0..n-1 are symbols; 256 + b stands for the escaped byte b. Packed: code | len << 9. */
  private static final int LEN_SHIFT = 9;

  private static final int CODE_MASK = (1 << LEN_SHIFT) - 1;

  /** Flag of a {@link #pairs} entry: some symbol of 3 or more bytes starts with the two bytes. */
  private static final int LONGER = 1 << 13;

  final long[] symbols = new long[MAX_SYMBOLS];
  final int[] lengths = new int[MAX_SYMBOLS];
  int size;

  /** Best match of 1 or 2 bytes per two-byte prefix {@code b0 | b1 << 8} (packed). */
  private final int[] pairs = new int[1 << 16];

  /** Best match of 1 byte per byte (packed). */
  private final int[] singles = new int[256];

  /** Buckets of the symbols of 3 or more bytes, by a hash of their first three bytes. */
  private static final int BUCKETS = 1 << 12;

  /** First symbol of each bucket, -1 for none; then {@link #next}, longest first. */
  private final int[] heads = new int[BUCKETS];

  private final int[] next = new int[MAX_SYMBOLS];

  /** The mask of each symbol's bytes in a word. */
  private final long[] masks = new long[MAX_SYMBOLS];

  /** Rebuilds the lookup tables after the symbols changed. */
  void index() {
    for (int b = 0; b < 256; b++) {
      singles[b] = (256 + b) | 1 << LEN_SHIFT;
    }
    for (int c = 0; c < size; c++) {
      if (lengths[c] == 1) {
        singles[(int) symbols[c] & 0xFF] = c | 1 << LEN_SHIFT;
      }
    }
    for (int b1 = 0; b1 < 256; b1++) {
      System.arraycopy(singles, 0, pairs, b1 << 8, 256);
    }
    Arrays.fill(heads, -1);
    // longest symbols end up first in each list: insert by increasing length
    for (int len = 2; len <= 8; len++) {
      for (int c = 0; c < size; c++) {
        if (lengths[c] != len) {
          continue;
        }
        masks[c] = mask(len);
        if (len == 2) {
          int key = (int) symbols[c] & 0xFFFF;
          pairs[key] = c | 2 << LEN_SHIFT | (pairs[key] & LONGER);
        } else {
          int b = bucket(symbols[c]);
          next[c] = heads[b];
          heads[b] = c;
          pairs[(int) symbols[c] & 0xFFFF] |= LONGER;
        }
      }
    }
  }

  /**
   * The longest match at {@code p} of a value of {@code rem >= 1} bytes left whose next (up to) 8
   * bytes are {@code w} (bytes past the value zero): packed code and length.
   */
  private int match(long w, int rem) {
    if (rem == 1) {
      return singles[(int) w & 0xFF];
    }
    int pair = pairs[(int) w & 0xFFFF];
    if ((pair & LONGER) != 0 && rem >= 3) {
      for (int c = heads[bucket(w)]; c >= 0; c = next[c]) {
        int len = lengths[c];
        if (len <= rem && (w & masks[c]) == symbols[c]) {
          return c | len << LEN_SHIFT;
        }
      }
    }
    return pair & ~LONGER;
  }

  private static int bucket(long w) {
    return (int) (((w & 0xFFFFFF) * 0x9E3779B1L) >>> 20) & (BUCKETS - 1);
  }

  private static long mask(int len) {
    return len >= 8 ? -1L : (1L << (8 * len)) - 1;
  }

  /** Up to 8 bytes of {@code data} from {@code p}, at most {@code rem} of them, little endian. */
  private static long word(byte[] data, int p, int rem) {
    if (p + 8 <= data.length) {
      long w = (long) LONG.get(data, p);
      return rem >= 8 ? w : w & mask(rem);
    }
    long w = 0;
    for (int i = Math.min(rem, 8) - 1; i >= 0; i--) {
      w = w << 8 | (data[p + i] & 0xFF);
    }
    return w;
  }

  /**
   * Compresses {@code data[from, to)} into {@code out} from {@code op} ({@code out} needs {@code 2
   * * (to - from)} bytes of room); returns the end of the compressed bytes.
   */
  int compress(byte[] data, int from, int to, byte[] out, int op) {
    int p = from;
    while (p < to) {
      int rem = to - p;
      int m = match(word(data, p, rem), rem);
      int code = m & CODE_MASK;
      if (code < 256) {
        out[op++] = (byte) code;
      } else {
        out[op++] = (byte) ESCAPE;
        out[op++] = (byte) code;
      }
      p += m >>> LEN_SHIFT;
    }
    return op;
  }

  /** Lance's serialized form: the header word, then symbols and lengths in code order. */
  byte[] serialize() {
    byte[] out = new byte[SERIALIZED_BYTES];
    LONG.set(out, 0, MAGIC << 32 | 1L << 24 | size);
    for (int c = 0; c < size; c++) {
      LONG.set(out, 8 + 8 * c, symbols[c]);
      out[8 + 8 * size + c] = (byte) lengths[c];
    }
    return out;
  }

  /** The table of a page stored verbatim under an FSST encoding: no symbols, compression off. */
  static byte[] serializedOff() {
    byte[] out = new byte[SERIALIZED_BYTES];
    LONG.set(out, 0, MAGIC << 32);
    return out;
  }

  // ---------------------------------------------------------------- construction

  /** Generations of the construction, as sample fractions in 128ths. */
  private static final int[] FRACTIONS = {8, 38, 68, 98, 128};

  private static final int CODES = 512;

  /**
   * Builds the table for {@code sample}: values {@code [starts[i], ends[i])} of {@code data},
   * {@code count} of them.
   */
  static FsstTable build(byte[] data, int[] starts, int[] ends, int count) {
    FsstTable table = new FsstTable();
    table.index();
    FsstTable best = null;
    long bestGain = Long.MIN_VALUE;
    int[] count1 = new int[CODES];
    int[] count2 = new int[CODES * CODES];
    Candidates candidates = new Candidates();
    for (int frac : FRACTIONS) {
      Arrays.fill(count1, 0);
      Arrays.fill(count2, 0);
      long gain = table.count(data, starts, ends, count, frac, count1, count2);
      if (gain >= bestGain) {
        bestGain = gain;
        best = table.copy();
      }
      if (frac == 128) {
        break;
      }
      table.evolve(count1, count2, frac, candidates);
    }
    best.index();
    return best;
  }

  private FsstTable copy() {
    FsstTable t = new FsstTable();
    System.arraycopy(symbols, 0, t.symbols, 0, size);
    System.arraycopy(lengths, 0, t.lengths, 0, size);
    t.size = size;
    return t;
  }

  /**
   * Compresses the sampled values, counting symbols ({@code count1}) and pairs of consecutive
   * symbols and of a symbol and the next byte ({@code count2}); returns the bytes saved.
   */
  private long count(
      byte[] data, int[] starts, int[] ends, int n, int frac, int[] count1, int[] count2) {
    long gain = 0;
    boolean pairsToo = frac < 128;
    for (int i = 0; i < n; i++) {
      int p = starts[i];
      int e = ends[i];
      int prev = -1;
      while (p < e) {
        int rem = e - p;
        int m = match(word(data, p, rem), rem);
        int code = m & CODE_MASK;
        int len = m >>> LEN_SHIFT;
        gain += code < 256 ? len - 1 : -1;
        count1[code]++;
        if (len > 1) {
          // the first byte alone is a candidate too
          count1[256 + (data[p] & 0xFF)]++;
        }
        if (pairsToo && prev >= 0) {
          count2[prev * CODES + code]++;
          if (len > 1) {
            count2[prev * CODES + 256 + (data[p] & 0xFF)]++;
          }
        }
        prev = code;
        p += len;
      }
    }
    return gain;
  }

  private long symbolOf(int code) {
    return code < 256 ? symbols[code] : code - 256;
  }

  private int lengthOf(int code) {
    return code < 256 ? lengths[code] : 1;
  }

  /** Replaces the symbols by the best candidates of the counts. */
  private void evolve(int[] count1, int[] count2, int frac, Candidates candidates) {
    candidates.clear();
    int min = Math.max(1, 5 * frac / 128);
    for (int c1 = 0; c1 < CODES; c1++) {
      int n1 = count1[c1];
      if (n1 == 0) {
        continue;
      }
      long s1 = symbolOf(c1);
      int l1 = lengthOf(c1);
      if (n1 >= min) {
        candidates.add(s1, l1, (long) n1 * l1 * (l1 == 1 ? 8 : 1));
      }
      if (l1 == 8) {
        continue;
      }
      int row = c1 * CODES;
      for (int c2 = 0; c2 < CODES; c2++) {
        int n2 = count2[row + c2];
        if (n2 < min) {
          continue;
        }
        int len = Math.min(8, l1 + lengthOf(c2));
        long s = (s1 | symbolOf(c2) << (8 * l1)) & mask(len);
        candidates.add(s, len, (long) n2 * len);
      }
    }
    size = candidates.best(symbols, lengths, MAX_SYMBOLS);
    index();
  }

  /** Candidate symbols with their summed gains, in an open-addressing table. */
  private static final class Candidates {
    private long[] keys = new long[4096];
    private int[] lens = new int[4096];
    private long[] gains = new long[4096];
    private int count;

    void clear() {
      Arrays.fill(lens, 0);
      count = 0;
    }

    void add(long symbol, int len, long gain) {
      if (2 * (count + 1) > keys.length) {
        grow();
      }
      int slot = slot(symbol, len);
      if (lens[slot] == 0) {
        keys[slot] = symbol;
        lens[slot] = len;
        gains[slot] = gain;
        count++;
      } else {
        gains[slot] += gain;
      }
    }

    private int slot(long symbol, int len) {
      int m = keys.length - 1;
      int h = (int) ((symbol * 0x9E3779B97F4A7C15L + len) >>> 40) & m;
      while (lens[h] != 0 && (lens[h] != len || keys[h] != symbol)) {
        h = (h + 1) & m;
      }
      return h;
    }

    private void grow() {
      long[] k = keys;
      int[] l = lens;
      long[] g = gains;
      keys = new long[2 * k.length];
      lens = new int[2 * k.length];
      gains = new long[2 * k.length];
      count = 0;
      for (int i = 0; i < k.length; i++) {
        if (l[i] != 0) {
          int s = slot(k[i], l[i]);
          keys[s] = k[i];
          lens[s] = l[i];
          gains[s] = g[i];
          count++;
        }
      }
    }

    /** Writes the {@code max} candidates of highest gain (ties: the later slot first). */
    int best(long[] symbols, int[] lengths, int max) {
      long[] order = new long[count];
      int k = 0;
      for (int i = 0; i < keys.length; i++) {
        if (lens[i] != 0) {
          // gains stay far below 2^38 (a sample of 2^15 bytes, weights of at most 64)
          order[k++] = gains[i] << 25 | i;
        }
      }
      Arrays.sort(order, 0, k);
      int n = Math.min(max, k);
      for (int i = 0; i < n; i++) {
        int s = (int) (order[k - 1 - i] & ((1 << 25) - 1));
        symbols[i] = keys[s];
        lengths[i] = lens[s];
      }
      return n;
    }
  }
}
