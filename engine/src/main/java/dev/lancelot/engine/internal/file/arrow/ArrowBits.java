package dev.lancelot.engine.internal.file.arrow;

import dev.lancelot.engine.internal.file.codec.DecodeException;
import java.nio.ByteBuffer;
import org.apache.arrow.memory.ArrowBuf;

/** Bit-level helpers for Arrow validity and boolean buffers (LSB-first bit order). */
final class ArrowBits {
  private ArrowBits() {}

  /** Sets bits {@code [start, start + n)} to 1. */
  static void setRange(ArrowBuf buf, long start, long n) {
    long end = start + n;
    long i = start;
    while (i < end && (i & 7) != 0) {
      setBit(buf, i++);
    }
    long fullBytes = (end - i) >>> 3;
    if (fullBytes > 0) {
      buf.setOne(i >>> 3, fullBytes);
      i += fullBytes << 3;
    }
    while (i < end) {
      setBit(buf, i++);
    }
  }

  static void setBit(ArrowBuf buf, long bit) {
    long idx = bit >>> 3;
    buf.setByte(idx, buf.getByte(idx) | (1 << (bit & 7)));
  }

  /** Sets the validity of {@code n} rows from definition levels (0 = valid). */
  static void setFromDefs(ArrowBuf validity, long start, short[] defs, int defFrom, int n) {
    int i = 0;
    while (i < n && ((start + i) & 7) != 0) {
      if (defs[defFrom + i] == 0) {
        setBit(validity, start + i);
      }
      i++;
    }
    for (; i + 8 <= n; i += 8) {
      int b = 0;
      int d = defFrom + i;
      for (int k = 0; k < 8; k++) {
        b |= (defs[d + k] == 0 ? 1 : 0) << k;
      }
      validity.setByte((start + i) >>> 3, b);
    }
    for (; i < n; i++) {
      if (defs[defFrom + i] == 0) {
        setBit(validity, start + i);
      }
    }
  }

  /**
   * Copies {@code n} bits like {@link #copyBits} but also clears destination bits that are 0 in the
   * source.
   */
  static void overwriteBits(ByteBuffer src, long srcBit, ArrowBuf dst, long dstBit, int n) {
    if ((srcBit + n + 7) / 8 > src.limit()) {
      throw DecodeException.corrupt(
          "bit buffer of "
              + src.limit()
              + " bytes is too short for bits ["
              + srcBit
              + ", "
              + (srcBit + n)
              + ")");
    }
    int b = 0;
    if ((srcBit & 7) == 0 && (dstBit & 7) == 0) {
      int bytes = n >>> 3;
      if (bytes > 0) {
        dst.setBytes(dstBit >>> 3, src, (int) (srcBit >>> 3), bytes);
      }
      b = bytes << 3;
    }
    for (; b < n; b++) {
      long s = srcBit + b;
      long d = dstBit + b;
      long idx = d >>> 3;
      int mask = 1 << (d & 7);
      if ((src.get((int) (s >>> 3)) & (1 << (s & 7))) != 0) {
        dst.setByte(idx, dst.getByte(idx) | mask);
      } else {
        dst.setByte(idx, dst.getByte(idx) & ~mask);
      }
    }
  }

  /**
   * Copies {@code n} bits from {@code src} (starting at bit {@code srcBit} of byte 0 of the buffer)
   * to {@code dst} at bit {@code dstBit}, OR-ing into bits that are currently zero.
   */
  static void copyBits(ByteBuffer src, long srcBit, ArrowBuf dst, long dstBit, int n) {
    if (n <= 0) {
      return;
    }
    if ((srcBit + n + 7) / 8 > src.limit()) {
      throw DecodeException.corrupt(
          "bit buffer of "
              + src.limit()
              + " bytes is too short for bits ["
              + srcBit
              + ", "
              + (srcBit + n)
              + ")");
    }
    if ((srcBit & 7) == 0 && (dstBit & 7) == 0) {
      int bytes = n >>> 3;
      if (bytes > 0) {
        dst.setBytes(dstBit >>> 3, src, (int) (srcBit >>> 3), bytes);
      }
      for (int b = bytes << 3; b < n; b++) {
        copyBit(src, srcBit + b, dst, dstBit + b);
      }
      return;
    }
    for (int b = 0; b < n; b++) {
      copyBit(src, srcBit + b, dst, dstBit + b);
    }
  }

  private static void copyBit(ByteBuffer src, long srcBit, ArrowBuf dst, long dstBit) {
    if ((src.get((int) (srcBit >>> 3)) & (1 << (srcBit & 7))) != 0) {
      setBit(dst, dstBit);
    }
  }

  /** Clears bits {@code [start, start + n)}. */
  static void clearRange(ArrowBuf buf, long start, long n) {
    for (long i = start; i < start + n; i++) {
      long idx = i >>> 3;
      buf.setByte(idx, buf.getByte(idx) & ~(1 << (i & 7)));
    }
  }
}
