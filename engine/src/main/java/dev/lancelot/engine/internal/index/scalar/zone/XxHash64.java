package dev.lancelot.engine.internal.index.scalar.zone;

/**
 * The 64-bit xxHash of a byte array (the published XXH64 algorithm), which Lance's bloom filters
 * use with seed 0 to place a value.
 */
public final class XxHash64 {
  private static final long P1 = 0x9E3779B185EBCA87L;
  private static final long P2 = 0xC2B2AE3D27D4EB4FL;
  private static final long P3 = 0x165667B19E3779F9L;
  private static final long P4 = 0x85EBCA77C2B2AE63L;
  private static final long P5 = 0x27D4EB2F165667C5L;

  private XxHash64() {}

  /** The hash of {@code data} with {@code seed}. */
  public static long hash(byte[] data, long seed) {
    int length = data.length;
    int at = 0;
    long h;
    if (length >= 32) {
      long v1 = seed + P1 + P2;
      long v2 = seed + P2;
      long v3 = seed;
      long v4 = seed - P1;
      for (int limit = length - 32; at <= limit; at += 32) {
        v1 = round(v1, long64(data, at));
        v2 = round(v2, long64(data, at + 8));
        v3 = round(v3, long64(data, at + 16));
        v4 = round(v4, long64(data, at + 24));
      }
      h =
          Long.rotateLeft(v1, 1)
              + Long.rotateLeft(v2, 7)
              + Long.rotateLeft(v3, 12)
              + Long.rotateLeft(v4, 18);
      h = merge(h, v1);
      h = merge(h, v2);
      h = merge(h, v3);
      h = merge(h, v4);
    } else {
      h = seed + P5;
    }
    h += length;
    for (; at + 8 <= length; at += 8) {
      h ^= round(0, long64(data, at));
      h = Long.rotateLeft(h, 27) * P1 + P4;
    }
    if (at + 4 <= length) {
      h ^= int64Of32(data, at) * P1;
      h = Long.rotateLeft(h, 23) * P2 + P3;
      at += 4;
    }
    for (; at < length; at++) {
      h ^= (data[at] & 0xFFL) * P5;
      h = Long.rotateLeft(h, 11) * P1;
    }
    h ^= h >>> 33;
    h *= P2;
    h ^= h >>> 29;
    h *= P3;
    h ^= h >>> 32;
    return h;
  }

  private static long round(long acc, long lane) {
    acc += lane * P2;
    acc = Long.rotateLeft(acc, 31);
    return acc * P1;
  }

  private static long merge(long acc, long v) {
    acc ^= round(0, v);
    return acc * P1 + P4;
  }

  private static long long64(byte[] b, int at) {
    long v = 0;
    for (int i = 7; i >= 0; i--) {
      v = (v << 8) | (b[at + i] & 0xFFL);
    }
    return v;
  }

  private static long int64Of32(byte[] b, int at) {
    return (b[at] & 0xFFL)
        | (b[at + 1] & 0xFFL) << 8
        | (b[at + 2] & 0xFFL) << 16
        | (b[at + 3] & 0xFFL) << 24;
  }
}
