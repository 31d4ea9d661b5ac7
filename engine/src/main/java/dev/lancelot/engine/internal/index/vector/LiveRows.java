package dev.lancelot.engine.internal.index.vector;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongPredicate;
import org.roaringbitmap.RoaringBitmap;

/**
 * The rows of one dataset version, as a predicate on row addresses ({@code (fragment << 32) |
 * offset}): an address is live when its fragment is part of the version and its offset is below the
 * fragment's row count and not deleted. An index segment keeps the addresses it was built with, so
 * searches pass this (or a prefilter mask combined with it) as their accept predicate: rows deleted
 * after a build, or of fragments no longer in the version, never come back.
 *
 * <p>Reads every deletion file of the version once, at construction. Immutable and thread-safe.
 */
public final class LiveRows implements LongPredicate {
  private final Map<Integer, RoaringBitmap> deleted = new HashMap<>();
  private final Map<Integer, Long> rows = new HashMap<>();

  private LiveRows(Dataset dataset) {
    for (DataFragment f : DatasetInternals.snapshot(dataset).fragments()) {
      int id = Math.toIntExact(f.getId());
      rows.put(id, f.getPhysicalRows());
      RoaringBitmap d = DatasetInternals.deletedRows(dataset, f);
      if (!d.isEmpty()) {
        deleted.put(id, d);
      }
    }
  }

  public static LiveRows of(Dataset dataset) {
    return new LiveRows(dataset);
  }

  @Override
  public boolean test(long rowAddress) {
    int fragment = (int) (rowAddress >>> 32);
    int offset = (int) rowAddress;
    Long n = rows.get(fragment);
    if (n == null || Integer.toUnsignedLong(offset) >= n) {
      return false;
    }
    RoaringBitmap d = deleted.get(fragment);
    return d == null || !d.contains(offset);
  }
}
