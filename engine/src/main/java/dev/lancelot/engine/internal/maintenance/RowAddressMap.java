package dev.lancelot.engine.internal.maintenance;

import java.util.HashMap;
import java.util.Map;

/**
 * Where each row of the rewritten fragments went: old row address ({@code (fragment << 32) |
 * offset}) to new row address, or "deleted" for rows that were deleted before the rewrite. Rows of
 * fragments that were not rewritten keep their address. Lance's {@code row_id_map} of a compaction
 * (old address to {@code Option<new address>}), kept as one array per rewritten fragment.
 */
public final class RowAddressMap {
  /** {@link #map} of a row that no longer exists. */
  public static final long DELETED = -1L;

  private final Map<Integer, long[]> byFragment = new HashMap<>();

  /**
   * Declares fragment {@code id} rewritten; its rows are deleted until {@link #put} says otherwise.
   */
  void addFragment(long id, long physicalRows) {
    long[] a = new long[Math.toIntExact(physicalRows)];
    java.util.Arrays.fill(a, DELETED);
    byFragment.put((int) id, a);
  }

  void put(long oldAddress, long newAddress) {
    long[] a = byFragment.get((int) (oldAddress >>> 32));
    if (a == null) {
      throw new IllegalStateException(
          "row address " + oldAddress + " is not in a rewritten fragment");
    }
    a[(int) oldAddress] = newAddress;
  }

  /**
   * The new address of {@code oldAddress}, {@link #DELETED}, or the address itself when its
   * fragment was kept.
   */
  public long map(long oldAddress) {
    long[] a = byFragment.get((int) (oldAddress >>> 32));
    if (a == null) {
      return oldAddress;
    }
    int offset = (int) oldAddress;
    return offset >= 0 && offset < a.length ? a[offset] : DELETED;
  }

  public boolean rewritten(long fragmentId) {
    return byFragment.containsKey((int) fragmentId);
  }
}
