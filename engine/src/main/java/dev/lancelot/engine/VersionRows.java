package dev.lancelot.engine;

import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.table.DatasetContext;
import dev.lancelot.engine.internal.table.RowIds;
import dev.lancelot.engine.internal.table.Snapshot;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.roaringbitmap.RoaringBitmap;

/**
 * What one {@link Dataset} version knows of its rows, read on first use and kept with the version:
 * each fragment's deleted offsets, the row ids, the data files' format versions.
 */
final class VersionRows {
  private final DatasetContext ctx;
  private final Snapshot snapshot;
  private final Map<Long, RoaringBitmap> deletions = new ConcurrentHashMap<>();
  private volatile RowIds rowIds;

  VersionRows(DatasetContext ctx, Snapshot snapshot) {
    this.ctx = ctx;
    this.snapshot = snapshot;
  }

  /** Deleted row offsets of a fragment (cached). */
  RoaringBitmap deletedRows(DataFragment fragment) {
    if (!fragment.hasDeletionFile()) {
      return new RoaringBitmap();
    }
    return deletions.computeIfAbsent(
        fragment.getId(), id -> DatasetStorage.readDeletions(ctx, snapshot, fragment));
  }

  /** Row ids of this version (stable ids, or addresses when the dataset has none). */
  RowIds rowIds() {
    RowIds r = rowIds;
    if (r == null) {
      synchronized (this) {
        r = rowIds;
        if (r == null) {
          r = new RowIds(snapshot, ctx.io(), this::deletedRows);
          rowIds = r;
        }
      }
    }
    return r;
  }

  /** The format versions of the version's data files, e.g. {@code [2.1, 2.2]}. */
  SortedSet<String> dataFileVersions() {
    SortedSet<String> out = new TreeSet<>();
    for (DataFragment f : snapshot.fragments()) {
      for (var file : f.getFilesList()) {
        out.add(file.getFileMajorVersion() + "." + file.getFileMinorVersion());
      }
    }
    return out;
  }
}
