package dev.lancelot.engine;

import dev.lancelot.engine.internal.format.DeletionFiles;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.table.Operation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.roaringbitmap.RoaringBitmap;

/**
 * Turns row-level changes found by reading one version (the rows to delete, by fragment and offset,
 * and fragments of new rows already written) into Lance's {@code Update} operation: each touched
 * fragment gets a deletion file holding its old and new deletions, a fragment left without rows is
 * removed instead, and the new fragments are added.
 */
final class RowChangesPlanner {
  private RowChangesPlanner() {}

  /** Plans against {@code dataset}; writes the deletion files (see {@link #deletionFiles}). */
  static Operation.Update plan(
      Dataset dataset, Map<Long, RoaringBitmap> deletes, List<FragmentMetadata> added) {
    List<DataFragment> updated = new ArrayList<>();
    List<Long> removed = new ArrayList<>();
    for (Map.Entry<Long, RoaringBitmap> e : new TreeMap<>(deletes).entrySet()) {
      long id = e.getKey();
      RoaringBitmap rows = e.getValue();
      if (rows.isEmpty()) {
        continue;
      }
      DataFragment fragment =
          dataset
              .snapshot()
              .fragment(id)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "Cannot delete rows of fragment "
                              + id
                              + " of "
                              + dataset.location()
                              + ": version "
                              + dataset.version()
                              + " has no such fragment"));
      long last = Integer.toUnsignedLong(rows.last());
      if (last >= fragment.getPhysicalRows()) {
        throw new IllegalArgumentException(
            "Cannot delete row "
                + last
                + " of fragment "
                + id
                + " of "
                + dataset.location()
                + ": it has "
                + fragment.getPhysicalRows()
                + " rows");
      }
      RoaringBitmap all = RoaringBitmap.or(dataset.deletedRows(fragment), rows);
      if (all.getLongCardinality() >= fragment.getPhysicalRows()) {
        removed.add(id);
      } else {
        var file =
            DeletionFiles.write(
                dataset.context().io(), dataset.location(), id, dataset.version(), all);
        updated.add(fragment.toBuilder().setDeletionFile(file).build());
      }
    }
    return new Operation.Update(
        removed, updated, added.stream().map(FragmentMetadata::toProto).toList());
  }

  /**
   * The deletion files {@code op} wrote, relative to the dataset root, for clean-up after a failed
   * commit.
   */
  static List<String> deletionFiles(Operation.Update op) {
    List<String> out = new ArrayList<>();
    for (DataFragment f : op.updatedFragments()) {
      out.add(DeletionFiles.relativePath(f.getId(), f.getDeletionFile()));
    }
    return out;
  }
}
