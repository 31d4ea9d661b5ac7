package dev.lancelot.engine.internal.file.write;

import dev.lancelot.engine.internal.file.proto.Encodings21Protos.CompressiveEncoding;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.Variable;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Dictionary encoding of a mini-block page of strings or binary values (32-bit offsets), as Lance 7
 * applies it: the page's distinct values, in order of first appearance, form a {@code Variable}
 * block stored as an extra page buffer, and the chunks hold 32-bit indices into it (bit-packed like
 * any 32-bit values, {@link InlineBitpacker}). Null items get index 0.
 *
 * <p>Chosen, with Lance's defaults, when the page has at least 100 values, at most half of them
 * (and at most 100,000) are distinct, and the dictionary plus 4-byte indices would take under 80%
 * of the bytes of the values and their offsets.
 */
final class StringDictionary {
  static final int MIN_VALUES = 100;
  static final int DIVISOR = 2;
  static final int MAX_CARDINALITY = 100_000;
  static final double MAX_SIZE_RATIO = 0.8;

  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  private final ByteSlice block;
  private final int size;
  private final byte[] indices;
  private final boolean packed;

  private StringDictionary(ByteSlice block, int size, byte[] indices, boolean packed) {
    this.block = block;
    this.size = size;
    this.indices = indices;
    this.packed = packed;
  }

  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /** A hash of {@code data[from, to)}, 8 bytes at a time. */
  private static int hash(byte[] data, int from, int to) {
    long h = (long) to - from;
    int p = from;
    for (; p + 8 <= to; p += 8) {
      h = (h ^ (long) LONG.get(data, p)) * 0x9E3779B97F4A7C15L;
    }
    for (; p < to; p++) {
      h = (h ^ (data[p] & 0xFF)) * 0x9E3779B97F4A7C15L;
    }
    return (int) (h ^ (h >>> 29));
  }

  /**
   * The dictionary of items {@code [first, first + n)} ({@code ends[i]}: end of item i's bytes in
   * {@code data}), or null when Lance's rule says not to use one. {@code items}: all buffered items
   * (indices are kept by item position).
   */
  static StringDictionary build(
      byte[] data, long[] ends, int first, int n, int items, Validity validity) {
    if (n < MIN_VALUES) {
      return null;
    }
    int maxCardinality = Math.min(n / DIVISOR, MAX_CARDINALITY);
    // open addressing: slot -> id + 1 (0 free); an id's bytes are those of item order[id]
    int[] slots = new int[Integer.highestOneBit(Math.max(1, maxCardinality)) * 4];
    int mask = slots.length - 1;
    int[] order = new int[Math.max(1, maxCardinality)];
    byte[] indices = new byte[4 * items];
    long distinctBytes = 0;
    int distinct = 0;
    for (int i = first; i < first + n; i++) {
      if (validity.isNull(i)) {
        continue; // index 0
      }
      int from = (int) (i == 0 ? 0 : ends[i - 1]);
      int to = (int) ends[i];
      int slot = hash(data, from, to) & mask;
      int id = -1;
      while (slots[slot] != 0) {
        int j = order[slots[slot] - 1];
        int jFrom = (int) (j == 0 ? 0 : ends[j - 1]);
        if (Arrays.equals(data, from, to, data, jFrom, (int) ends[j])) {
          id = slots[slot] - 1;
          break;
        }
        slot = (slot + 1) & mask;
      }
      if (id < 0) {
        if (distinct >= maxCardinality) {
          return null;
        }
        id = distinct++;
        slots[slot] = id + 1;
        order[id] = i;
        distinctBytes += to - from;
      }
      INT.set(indices, 4 * i, id);
    }
    int size = distinct;
    long raw = (ends[first + n - 1] - (first == 0 ? 0 : ends[first - 1])) + 4L * n;
    long encoded = distinctBytes + 4L * (size + 1) + 8 + 4L * n;
    if (size == 0 || encoded >= MAX_SIZE_RATIO * raw) {
      return null;
    }
    int header = 8 + 4 * (size + 1);
    byte[] block = new byte[(int) (header + distinctBytes)];
    INT.set(block, 0, 32);
    INT.set(block, 4, header);
    int pos = header;
    INT.set(block, 8, 0);
    for (int d = 0; d < size; d++) {
      int i = order[d];
      int from = (int) (i == 0 ? 0 : ends[i - 1]);
      int len = (int) ends[i] - from;
      System.arraycopy(data, from, block, pos, len);
      pos += len;
      INT.set(block, 8 + 4 * (d + 1), pos - header);
    }
    boolean packed = InlineBitpacker.smaller(indices, first, n, 4, validity);
    return new StringDictionary(ByteSlice.of(block), size, indices, packed);
  }

  /**
   * The page buffer: {@code [u32 32][u32 start of the bytes][u32 offsets x (size + 1)][bytes]},
   * offsets counted from the start of the bytes.
   */
  ByteSlice block() {
    return block;
  }

  int size() {
    return size;
  }

  /** The chunk buffer of the indices of items {@code [start, start + count)}. */
  ByteSlice indices(int start, int count, Validity validity) {
    return packed
        ? InlineBitpacker.chunk(indices, start, count, 4, validity)
        : new ByteSlice(indices, 4 * start, 4 * count);
  }

  CompressiveEncoding indexEncoding() {
    return packed ? InlineBitpacker.encoding(4) : MiniBlockBuilder.flat(32);
  }

  /** The encoding of {@link #block()}. */
  static CompressiveEncoding blockEncoding() {
    return CompressiveEncoding.newBuilder()
        .setVariable(Variable.newBuilder().setOffsets(MiniBlockBuilder.flat(32)))
        .build();
  }
}
