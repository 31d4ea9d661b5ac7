package dev.lancelot.engine.internal.scan;

/** Row addresses: {@code (fragment_id << 32) | offset} (F5). */
public final class RowAddress {
  private RowAddress() {}

  public static long of(long fragmentId, long offset) {
    return (fragmentId << 32) | (offset & 0xFFFFFFFFL);
  }

  public static long fragment(long address) {
    return address >>> 32;
  }

  public static int offset(long address) {
    return (int) (address & 0xFFFFFFFFL);
  }
}
