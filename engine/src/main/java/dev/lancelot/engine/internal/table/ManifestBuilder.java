package dev.lancelot.engine.internal.table;

import com.google.protobuf.ByteString;
import com.google.protobuf.Timestamp;
import dev.lancelot.engine.internal.format.FeatureFlags;
import dev.lancelot.engine.internal.format.FragmentBitmaps;
import dev.lancelot.engine.internal.format.RowIdSequence;
import dev.lancelot.engine.internal.format.RowVersions;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexMetadata;
import dev.lancelot.engine.internal.format.proto.TableProtos.Manifest;
import dev.lancelot.engine.internal.format.proto.TransactionProtos.Transaction;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.roaringbitmap.RoaringBitmap;

/**
 * Computes the manifest of version {@code base + 1} from the base version and an operation, as
 * Lance does: new fragments get ids above the high-water mark ({@code max_fragment_id}), an
 * overwrite restarts ids at 0 and drops every index, everything else the base carries (index
 * section, config, schema metadata, unknown fields) is carried forward untouched.
 */
final class ManifestBuilder {
  static final String WRITER_LIBRARY = "lancelot";
  static final String WRITER_VERSION = "0.1.0";
  static final String DEFAULT_FILE_VERSION = "2.1";

  /** The manifest and index section of a version about to be committed. */
  record Built(Manifest manifest, List<IndexMetadata> indices) {}

  private ManifestBuilder() {}

  static Built build(Snapshot base, Operation op, String transactionFile, Instant now) {
    if (base == null && !(op instanceof Operation.Overwrite)) {
      throw new IllegalStateException("Only an overwrite can create a dataset, got " + op.kind());
    }
    Manifest.Builder m =
        base == null
            ? Manifest.newBuilder()
            : op instanceof Operation.Restore r
                ? r.manifest().toBuilder()
                : base.manifest().toBuilder();
    long version = base == null ? 1 : base.version() + 1;
    List<DataFragment> fragments;
    List<IndexMetadata> indices = base == null ? List.of() : base.indices();

    if (op instanceof Operation.Append a) {
      fragments = new ArrayList<>(base.fragments());
      long next = base.nextFragmentId();
      List<DataFragment> added = new ArrayList<>();
      for (DataFragment f : a.fragments()) {
        refuseRowIds(f);
        added.add(f.toBuilder().setId(next++).build());
      }
      if (RowIds.usesStableRowIds(base.manifest().getReaderFeatureFlags())) {
        added = assignRowIds(m, added, version);
      }
      fragments.addAll(added);
    } else if (op instanceof Operation.Delete d) {
      Map<Long, DataFragment> byId = new LinkedHashMap<>();
      for (DataFragment f : base.fragments()) {
        byId.put(f.getId(), f);
      }
      for (DataFragment f : d.updatedFragments()) {
        if (!byId.containsKey(f.getId())) {
          throw new IllegalStateException(
              "Delete updates fragment " + f.getId() + " absent from version " + base.version());
        }
        byId.put(f.getId(), f);
      }
      d.deletedFragmentIds().forEach(byId::remove);
      fragments = new ArrayList<>(byId.values());
    } else if (op instanceof Operation.Update u) {
      Map<Long, DataFragment> byId = new LinkedHashMap<>();
      for (DataFragment f : base.fragments()) {
        byId.put(f.getId(), f);
      }
      for (DataFragment f : u.updatedFragments()) {
        if (!byId.containsKey(f.getId())) {
          throw new IllegalStateException(
              "Update changes fragment " + f.getId() + " absent from version " + base.version());
        }
        byId.put(f.getId(), f);
      }
      u.removedFragmentIds().forEach(byId::remove);
      fragments = new ArrayList<>(byId.values());
      long next = base.nextFragmentId();
      boolean stable = RowIds.usesStableRowIds(base.manifest().getReaderFeatureFlags());
      for (DataFragment f : u.newFragments()) {
        DataFragment added = f.toBuilder().setId(next++).build();
        fragments.add(stable ? updatedRowIds(m, added, version) : added);
      }
    } else if (op instanceof Operation.Overwrite o) {
      fragments = new ArrayList<>();
      long next = 0;
      for (DataFragment f : o.fragments()) {
        fragments.add(f.toBuilder().setId(next++).build());
      }
      if (base != null && RowIds.usesStableRowIds(base.manifest().getReaderFeatureFlags())) {
        // As Lance: the dataset keeps stable row ids, and the new rows take fresh ids after every
        // id used so far (decision D56).
        fragments = assignRowIds(m, fragments, version);
      } else if (o.stableRowIds()) {
        if (base != null) {
          throw new IllegalStateException("Stable row ids can only be enabled by a create");
        }
        // A dataset created with stable row ids: flag 2 for readers and writers, ids from 0.
        m.setReaderFeatureFlags(m.getReaderFeatureFlags() | FeatureFlags.STABLE_ROW_IDS);
        m.setWriterFeatureFlags(m.getWriterFeatureFlags() | FeatureFlags.STABLE_ROW_IDS);
        m.setNextRowId(0);
        fragments = assignRowIds(m, fragments, version);
      }
      if (!o.initialBases().isEmpty()) {
        if (base != null) {
          throw new IllegalStateException("Base paths can only be registered by a create");
        }
        m.addAllBasePaths(o.initialBases()); // flag 16 follows from them below
      }
      m.clearFields().addAllFields(o.schema());
      m.clearSchemaMetadata().putAllSchemaMetadata(o.schemaMetadata());
      if (base == null || o.dataFormatVersion() != null) {
        String fileVersion =
            o.dataFormatVersion() == null ? DEFAULT_FILE_VERSION : o.dataFormatVersion();
        m.setDataFormat(
            Manifest.DataStorageFormat.newBuilder().setFileFormat("lance").setVersion(fileVersion));
      }
      indices = List.of();
    } else if (op instanceof Operation.Restore r) {
      // The old version's content as it was; fragment ids stay above every id used since (as
      // Lance keeps max_fragment_id), so no id means two different fragments.
      fragments = new ArrayList<>(r.manifest().getFragmentsList());
      indices = r.indices();
      long maxId = base.nextFragmentId() - 1;
      if (maxId >= 0
          && (!m.hasMaxFragmentId() || maxId > Integer.toUnsignedLong(m.getMaxFragmentId()))) {
        m.setMaxFragmentId((int) maxId);
      }
      // Likewise no stable row id names two different rows: ids stay above every id used since
      // (Lance 7 restores the old next_row_id; decision D56).
      if (Long.compareUnsigned(base.manifest().getNextRowId(), m.getNextRowId()) > 0) {
        m.setNextRowId(base.manifest().getNextRowId());
      }
    } else if (op instanceof Operation.Rewrite r) {
      fragments = rewriteFragments(base, r);
      indices = rewriteIndices(base, r);
    } else if (op instanceof Operation.Merge mg) {
      fragments = new ArrayList<>(mg.fragments());
      if (RowIds.usesStableRowIds(base.manifest().getReaderFeatureFlags())) {
        fragments = rewrittenAt(base, fragments, version);
      }
      m.clearFields().addAllFields(mg.schema());
      m.clearSchemaMetadata().putAllSchemaMetadata(mg.schemaMetadata());
    } else if (op instanceof Operation.UpdateConfig uc) {
      fragments = new ArrayList<>(base.fragments());
      uc.entries()
          .forEach(
              (key, value) -> {
                if (value.isPresent()) {
                  m.putConfig(key, value.get());
                } else {
                  m.removeConfig(key);
                }
              });
    } else if (op instanceof Operation.Project p) {
      fragments = new ArrayList<>(base.fragments());
      m.clearFields().addAllFields(p.schema());
      indices = onExistingFields(indices, p.schema());
    } else {
      Operation.CreateIndex c = (Operation.CreateIndex) op;
      fragments = new ArrayList<>(base.fragments());
      Set<ByteString> removed = new HashSet<>();
      c.removedIndices().forEach(i -> removed.add(i.getUuid().getUuid()));
      List<IndexMetadata> kept = new ArrayList<>();
      for (IndexMetadata i : base.indices()) {
        if (!removed.contains(i.getUuid().getUuid())) {
          kept.add(i);
        }
      }
      kept.addAll(c.newIndices());
      // An index built on a column that a concurrent projection dropped has nothing to index.
      indices = onExistingFields(kept, base.manifest().getFieldsList());
    }

    if (!(op instanceof Operation.Rewrite)) {
      // A rewrite keeps the rows where they were: its new fragments take the old ones' place.
      fragments.sort((x, y) -> Long.compare(x.getId(), y.getId()));
    }
    m.setVersion(version);
    m.clearFragments().addAllFragments(fragments);
    long maxId = m.hasMaxFragmentId() ? Integer.toUnsignedLong(m.getMaxFragmentId()) : -1;
    for (DataFragment f : fragments) {
      maxId = Math.max(maxId, f.getId());
    }
    if (maxId >= 0) {
      m.setMaxFragmentId((int) maxId);
    }
    boolean deletions = fragments.stream().anyMatch(DataFragment::hasDeletionFile);
    long keepReader = m.getReaderFeatureFlags() & ~FeatureFlags.DELETION_FILES;
    long keepWriter =
        m.getWriterFeatureFlags() & ~(FeatureFlags.DELETION_FILES | FeatureFlags.TABLE_CONFIG);
    long flag = deletions ? FeatureFlags.DELETION_FILES : 0;
    long config = m.getConfigCount() > 0 ? FeatureFlags.TABLE_CONFIG : 0;
    long bases = m.getBasePathsCount() > 0 ? FeatureFlags.BASE_PATHS : 0;
    long mixed =
        mixesFileVersions(fragments, m.getDataFormat().getVersion())
            ? FeatureFlags.MIXED_DATA_FILE_VERSIONS
            : 0;
    m.setReaderFeatureFlags(keepReader | flag | bases | mixed);
    m.setWriterFeatureFlags(keepWriter | flag | config | bases | mixed);
    m.setWriterVersion(
        Manifest.WriterVersion.newBuilder().setLibrary(WRITER_LIBRARY).setVersion(WRITER_VERSION));
    m.setTimestamp(Timestamp.newBuilder().setSeconds(now.getEpochSecond()).setNanos(now.getNano()));
    m.setTransactionFile(transactionFile);
    m.clearTag();
    m.clearIndexSection();
    m.clearTransactionSection();
    return new Built(m.build(), indices);
  }

  /**
   * {@code fragments} with fresh stable row ids, as Lance assigns them: each fragment's ids are one
   * range starting at the manifest's {@code next_row_id}, stored inline, and {@code next_row_id}
   * advances past them (decision D48); every row was created and last updated by {@code version}
   * (decision D56).
   */
  /**
   * Refuses a new fragment that already carries row ids: new fragments take fresh ids (or none),
   * and a fragment marked with the rows it replaces belongs in a row change.
   */
  private static void refuseRowIds(DataFragment f) {
    if (f.getRowIdSequenceCase() != DataFragment.RowIdSequenceCase.ROWIDSEQUENCE_NOT_SET) {
      throw new dev.lancelot.engine.InvalidInputException(
          "Cannot add fragment "
              + f.getId()
              + ": it already carries row ids. New fragments take fresh ids; a fragment marked"
              + " with the rows it replaces (FragmentMetadata.withSourceRows) belongs in"
              + " Dataset.commitRowChanges, not in an append.");
    }
  }

  static List<DataFragment> assignRowIds(
      Manifest.Builder m, List<DataFragment> fragments, long version) {
    long nextRowId = m.getNextRowId();
    List<DataFragment> out = new ArrayList<>(fragments.size());
    for (DataFragment f : fragments) {
      refuseRowIds(f);
      long rows = f.getPhysicalRows();
      out.add(
          f.toBuilder()
              .setInlineRowIds(
                  ByteString.copyFrom(RowIdSequence.range(nextRowId, rows).serialize()))
              .setInlineCreatedAtVersions(RowVersions.uniform(rows, version))
              .setInlineLastUpdatedAtVersions(RowVersions.uniform(rows, version))
              .build());
      nextRowId += rows;
    }
    m.setNextRowId(nextRowId);
    return out;
  }

  /**
   * A new fragment of an update with its stable row ids: the ids its rows keep (set by the
   * planner), fresh ids from {@code next_row_id} for rows marked new (or for every row when none
   * keeps an id); created at their old version or {@code version}, all last updated by {@code
   * version}, as Lance writes an update (decision D56).
   */
  private static DataFragment updatedRowIds(Manifest.Builder m, DataFragment f, long version) {
    if (f.getRowIdSequenceCase() == DataFragment.RowIdSequenceCase.ROWIDSEQUENCE_NOT_SET) {
      return assignRowIds(m, List.of(f), version).get(0);
    }
    long[] ids = RowIdSequence.parse(f.getInlineRowIds().toByteArray(), "new rows").toArray();
    long nextRowId = m.getNextRowId();
    for (int i = 0; i < ids.length; i++) {
      if (ids[i] == -1L) {
        ids[i] = nextRowId++;
      }
    }
    m.setNextRowId(nextRowId);
    DataFragment.Builder b =
        f.toBuilder().setInlineRowIds(ByteString.copyFrom(RowIdSequence.ofIds(ids).serialize()));
    if (f.hasInlineCreatedAtVersions()) {
      long[] created = RowVersions.parse(f.getInlineCreatedAtVersions().toByteArray(), "new rows");
      for (int i = 0; i < created.length; i++) {
        if (created[i] == 0) {
          created[i] = version;
        }
      }
      b.setInlineCreatedAtVersions(RowVersions.encode(created))
          .setInlineLastUpdatedAtVersions(RowVersions.uniform(f.getPhysicalRows(), version));
    }
    return b.build();
  }

  /**
   * {@code fragments} with each one whose data files changed from {@code base}'s (columns written
   * into it) marked as last updated by {@code version} in every row, as Lance does when it writes
   * columns into a fragment that carries row version sequences.
   */
  private static List<DataFragment> rewrittenAt(
      Snapshot base, List<DataFragment> fragments, long version) {
    List<DataFragment> out = new ArrayList<>(fragments.size());
    for (DataFragment f : fragments) {
      boolean written =
          base.fragment(f.getId())
              .map(old -> !old.getFilesList().equals(f.getFilesList()))
              .orElse(true);
      out.add(
          written && (f.hasInlineLastUpdatedAtVersions() || f.hasExternalLastUpdatedAtVersions())
              ? f.toBuilder()
                  .setInlineLastUpdatedAtVersions(RowVersions.uniform(f.getPhysicalRows(), version))
                  .build()
              : f);
    }
    return out;
  }

  /**
   * Whether a 2.x data file of {@code fragments} has another format version than the manifest's
   * {@code data_format} (its fallback): then the snapshot mixes file versions and, as in Lance, the
   * commit that first produces it sets {@link FeatureFlags#MIXED_DATA_FILE_VERSIONS} for readers
   * and writers (the flag then stays set). lancelot writes 2.1 files only, so an append, update,
   * column backfill or compaction into a 2.0 or 2.2 dataset produces such a snapshot.
   */
  static boolean mixesFileVersions(List<DataFragment> fragments, String fallback) {
    int dot = fallback.indexOf('.');
    int major;
    int minor;
    try {
      major = Integer.parseInt(fallback.substring(0, Math.max(dot, 0)));
      minor = Integer.parseInt(fallback.substring(dot + 1));
    } catch (NumberFormatException e) {
      return false; // no fallback to compare with (legacy or unrecorded)
    }
    if (major < 2) {
      return false;
    }
    for (DataFragment f : fragments) {
      for (var file : f.getFilesList()) {
        if (file.getFileMajorVersion() >= 2
            && (file.getFileMajorVersion() != major || file.getFileMinorVersion() != minor)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * The index segments whose fields all exist in {@code schema}: as Lance, dropping a column drops
   * the indexes on it.
   */
  private static List<IndexMetadata> onExistingFields(
      List<IndexMetadata> indices,
      List<dev.lancelot.engine.internal.format.proto.FileProtos.Field> schema) {
    Set<Integer> ids = new HashSet<>();
    schema.forEach(f -> ids.add(f.getId()));
    List<IndexMetadata> out = new ArrayList<>();
    for (IndexMetadata i : indices) {
      if (ids.containsAll(i.getFieldsList())) {
        out.add(i);
      }
    }
    return out;
  }

  /**
   * The base's fragments with each group's old fragments replaced by its new ones, in the old
   * fragments' place when they were contiguous (as Lance splices them), else at the end.
   */
  private static List<DataFragment> rewriteFragments(Snapshot base, Operation.Rewrite r) {
    List<DataFragment> fragments = new ArrayList<>(base.fragments());
    long next = base.nextFragmentId();
    for (Transaction.Rewrite.RewriteGroup g : r.groups()) {
      for (DataFragment f : g.getNewFragmentsList()) {
        if (f.getId() < next) {
          throw new IllegalStateException(
              "Rewrite assigns fragment id "
                  + f.getId()
                  + ", already used by version "
                  + base.version()
                  + " (next free id "
                  + next
                  + ")");
        }
      }
      int start = -1;
      for (int i = 0; i < fragments.size(); i++) {
        if (fragments.get(i).getId() == g.getOldFragments(0).getId()) {
          start = i;
          break;
        }
      }
      if (start < 0) {
        throw new IllegalStateException(
            "Rewrite replaces fragment "
                + g.getOldFragments(0).getId()
                + ", absent from version "
                + base.version());
      }
      boolean contiguous = start + g.getOldFragmentsCount() <= fragments.size();
      for (int i = 0; contiguous && i < g.getOldFragmentsCount(); i++) {
        contiguous = fragments.get(start + i).getId() == g.getOldFragments(i).getId();
      }
      if (contiguous) {
        fragments.subList(start, start + g.getOldFragmentsCount()).clear();
        fragments.addAll(start, g.getNewFragmentsList());
      } else {
        Set<Long> old = new HashSet<>();
        g.getOldFragmentsList().forEach(f -> old.add(f.getId()));
        int before = fragments.size();
        fragments.removeIf(f -> old.contains(f.getId()));
        if (before - fragments.size() != old.size()) {
          throw new IllegalStateException(
              "Rewrite replaces fragments "
                  + old
                  + ", not all present in version "
                  + base.version());
        }
        fragments.addAll(g.getNewFragmentsList());
      }
    }
    return fragments;
  }

  /**
   * The fragments {@code index} covers after rewrite {@code r}: each group's new fragments in place
   * of its old ones, for every group whose fragments it covered.
   */
  private static RoaringBitmap moved(IndexMetadata index, Operation.Rewrite r) {
    RoaringBitmap covered = FragmentBitmaps.of(index);
    for (Transaction.Rewrite.RewriteGroup g : r.groups()) {
      if (covered.contains((int) g.getOldFragments(0).getId())) {
        g.getOldFragmentsList().forEach(f -> covered.remove((int) f.getId()));
        g.getNewFragmentsList().forEach(f -> covered.add((int) f.getId()));
      }
    }
    return covered;
  }

  /**
   * The base's index segments with each rewritten segment under its new uuid and files, covering
   * the new fragments in place of the old ones of every group it covered.
   */
  private static List<IndexMetadata> rewriteIndices(Snapshot base, Operation.Rewrite r) {
    Map<ByteString, Transaction.Rewrite.RewrittenIndex> byOld = new LinkedHashMap<>();
    r.rewrittenIndices().forEach(ri -> byOld.put(ri.getOldId().getUuid(), ri));
    List<IndexMetadata> out = new ArrayList<>();
    boolean stable = RowIds.usesStableRowIds(base.manifest().getReaderFeatureFlags());
    for (IndexMetadata index : base.indices()) {
      Transaction.Rewrite.RewrittenIndex ri = byOld.remove(index.getUuid().getUuid());
      if (ri == null && stable) {
        // Keyed by stable ids, the segment stays valid: as Lance, it now covers the new fragments
        // of each group whose fragments it covered (decision D56).
        RoaringBitmap covered = moved(index, r);
        out.add(
            covered.equals(FragmentBitmaps.of(index))
                ? index
                : index.toBuilder().setFragmentBitmap(FragmentBitmaps.bytes(covered)).build());
        continue;
      }
      if (ri == null) {
        out.add(index);
        continue;
      }
      RoaringBitmap covered = moved(index, r);
      IndexMetadata.Builder b =
          index.toBuilder()
              .setUuid(ri.getNewId())
              .setFragmentBitmap(FragmentBitmaps.bytes(covered))
              .clearFiles()
              .addAllFiles(ri.getNewIndexFilesList());
      if (ri.hasNewIndexDetails()) {
        b.setIndexDetails(ri.getNewIndexDetails());
      }
      out.add(b.build());
    }
    if (!byOld.isEmpty()) {
      throw new IllegalStateException(
          "Rewrite remaps "
              + byOld.size()
              + " index segment(s) absent from version "
              + base.version());
    }
    return out;
  }
}
