package dev.lancelot.engine;

import com.google.protobuf.ByteString;
import dev.lancelot.engine.internal.format.DeletionFiles;
import dev.lancelot.engine.internal.format.RowIdSequence;
import dev.lancelot.engine.internal.format.RowVersions;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.table.Operation;
import dev.lancelot.engine.internal.table.Snapshot;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
    // checked before any deletion file is written
    List<DataFragment> news = newFragments(dataset, deletes, added);
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
    return new Operation.Update(removed, updated, news);
  }

  /**
   * The new fragments of a change, with the stable ids of the rows they replace: a row written in
   * place of a row this change deletes ({@link FragmentMetadata#withSourceRows}) keeps that row's
   * id and creation version, as Lance's updates keep them; the other rows are marked {@link
   * FragmentMetadata#NEW_ROW} (and creation version 0) for the commit to give fresh ids (decision
   * D56). Without stable ids the sources are checked and dropped.
   */
  private static List<DataFragment> newFragments(
      Dataset dataset, Map<Long, RoaringBitmap> deletes, List<FragmentMetadata> added) {
    boolean stable = dataset.stableRowIds();
    Snapshot snapshot = dataset.snapshot();
    String where = dataset.location() + "@v" + dataset.version();
    Map<Long, long[]> createdOf = new HashMap<>();
    Set<Long> used = new HashSet<>();
    List<DataFragment> out = new ArrayList<>(added.size());
    for (FragmentMetadata fm : added) {
      DataFragment f = fm.toProto();
      if (f.getRowIdSequenceCase() == DataFragment.RowIdSequenceCase.ROWIDSEQUENCE_NOT_SET) {
        out.add(f);
        continue;
      }
      long[] sources = RowIdSequence.parse(f.getInlineRowIds().toByteArray(), where).toArray();
      DataFragment.Builder b =
          f.toBuilder()
              .clearInlineRowIds()
              .clearInlineCreatedAtVersions()
              .clearInlineLastUpdatedAtVersions();
      long[] ids = new long[sources.length];
      long[] created = new long[sources.length];
      boolean versions = true;
      for (int i = 0; i < sources.length; i++) {
        long source = sources[i];
        if (source == FragmentMetadata.NEW_ROW) {
          ids[i] = FragmentMetadata.NEW_ROW;
          continue;
        }
        RoaringBitmap rows = deletes.get(source >>> 32);
        if (rows == null || !rows.contains((int) source) || !used.add(source)) {
          throw new IllegalArgumentException(
              "Cannot commit row changes to "
                  + where
                  + ": a new row replaces row address "
                  + Long.toUnsignedString(source)
                  + ", which the change does not delete"
                  + (used.contains(source) && rows != null && rows.contains((int) source)
                      ? " only once (two new rows replace it)"
                      : ""));
        }
        if (stable) {
          ids[i] = dataset.rowIds().idOf(source);
          DataFragment old = snapshot.fragment(source >>> 32).orElseThrow();
          long[] c =
              createdOf.computeIfAbsent(
                  old.getId(),
                  id -> {
                    long[] v =
                        RowVersions.of(
                            old,
                            RowVersions.Kind.CREATED,
                            where,
                            file -> dataset.rowIds().readExternal(file, "row version"));
                    return v == null ? new long[0] : v;
                  });
          versions &= c.length > 0;
          created[i] = versions ? c[(int) (source & 0xFFFFFFFFL)] : 0;
        }
      }
      if (stable) {
        b.setInlineRowIds(ByteString.copyFrom(RowIdSequence.of(ids).serialize()));
        if (versions) {
          b.setInlineCreatedAtVersions(RowVersions.encode(created));
        }
      }
      out.add(b.build());
    }
    return out;
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
