package dev.lancelot.engine.internal.file.write;

import java.util.BitSet;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;

/** Null positions of a page, appended batch by batch. */
final class Validity {
  private final BitSet nulls = new BitSet();
  private int size;
  private int nullCount;

  /** Appends the validity of rows {@code [from, from + n)} of {@code v}. */
  void append(FieldVector v, int from, int n) {
    ArrowBuf validity = v.getValidityBuffer();
    if (validity != null && validity.capacity() * 8 >= (long) from + n) {
      if (validCount(validity, from, n) == n) {
        size += n;
        return;
      }
    } else if (v.getNullCount() == 0) {
      size += n;
      return;
    }
    for (int i = 0; i < n; i++) {
      int row = from + i;
      if (validity == null || (validity.getByte(row >>> 3) & (1 << (row & 7))) == 0) {
        nulls.set(size + i);
        nullCount++;
      }
    }
    size += n;
  }

  /**
   * Set bits of {@code bits} in {@code [from, from + n)} (counts only the range, 64 bits at a
   * time).
   */
  static int validCount(ArrowBuf bits, int from, int n) {
    int end = from + n;
    int i = from;
    int count = 0;
    while (i < end && (i & 63) != 0) {
      count += (bits.getByte(i >>> 3) >>> (i & 7)) & 1;
      i++;
    }
    while (i + 64 <= end) {
      count += Long.bitCount(bits.getLong(i >>> 3));
      i += 64;
    }
    while (i < end) {
      count += (bits.getByte(i >>> 3) >>> (i & 7)) & 1;
      i++;
    }
    return count;
  }

  void appendNulls(int n) {
    nulls.set(size, size + n);
    nullCount += n;
    size += n;
  }

  void appendValid(int n) {
    size += n;
  }

  boolean isNull(int row) {
    return nulls.get(row);
  }

  int size() {
    return size;
  }

  int nullCount() {
    return nullCount;
  }

  /** Validity bits (1 = valid) of rows {@code [from, from + n)}, packed LSB first from bit 0. */
  byte[] validBits(int from, int n) {
    byte[] out = new byte[(n + 7) / 8];
    for (int i = 0; i < n; i++) {
      if (!nulls.get(from + i)) {
        out[i >>> 3] |= (byte) (1 << (i & 7));
      }
    }
    return out;
  }

  void clear() {
    nulls.clear();
    size = 0;
    nullCount = 0;
  }
}
