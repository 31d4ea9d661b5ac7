package dev.lancelot.engine.internal.table;

import com.google.protobuf.ByteString;
import dev.lancelot.engine.internal.format.proto.FileProtos.Field;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexMetadata;
import dev.lancelot.engine.internal.format.proto.TableProtos.Manifest;
import dev.lancelot.engine.internal.format.proto.TransactionProtos.Transaction;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A change to a dataset, committed as one transaction. Each operation knows how it combines with a
 * transaction that another writer committed after this one's read version (Lance's conflict rules).
 */
public sealed interface Operation {

  /** What to do about a concurrent transaction. */
  enum Resolution {
    /** Re-apply this operation on top of the newer version. */
    COMPATIBLE,
    /** This operation must be planned again against the newer version (e.g. re-run a delete). */
    REPLAN,
    /** The operations cannot both happen; fail with a conflict error. */
    INCOMPATIBLE
  }

  OperationKind kind();

  /** The protobuf transaction recorded for this operation. */
  Transaction toTransaction(long readVersion, String uuid);

  Resolution resolve(Transaction other);

  /** The ids of {@code fragments} and {@code ids} together. */
  private static Set<Long> fragmentIds(List<DataFragment> fragments, List<Long> ids) {
    Set<Long> all = new HashSet<>(ids);
    for (DataFragment f : fragments) {
      all.add(f.getId());
    }
    return all;
  }

  /** Whether another transaction's changed {@code fragments} or {@code ids} include one of mine. */
  private static boolean sharesAFragment(
      Set<Long> mine, List<DataFragment> fragments, List<Long> ids) {
    for (DataFragment f : fragments) {
      if (mine.contains(f.getId())) {
        return true;
      }
    }
    for (long id : ids) {
      if (mine.contains(id)) {
        return true;
      }
    }
    return false;
  }

  /** New fragments; ids are assigned at commit time. */
  record Append(List<DataFragment> fragments) implements Operation {
    public Append {
      fragments = List.copyOf(fragments);
    }

    @Override
    public OperationKind kind() {
      return OperationKind.APPEND;
    }

    @Override
    public Transaction toTransaction(long readVersion, String uuid) {
      return Transaction.newBuilder()
          .setReadVersion(readVersion)
          .setUuid(uuid)
          .setAppend(Transaction.Append.newBuilder().addAllFragments(fragments))
          .build();
    }

    @Override
    public Resolution resolve(Transaction other) {
      return switch (OperationKind.of(other)) {
        // A concurrent column addition gave every fragment it knew a new data file; the appended
        // fragments would lack the added columns' values.
        case OVERWRITE, RESTORE, MERGE, UPDATE_MEM_WAL_STATE, UNKNOWN -> Resolution.INCOMPATIBLE;
        default -> Resolution.COMPATIBLE;
      };
    }
  }

  /**
   * Deletion: fragments whose deletion file changed, and fragments whose every row is now deleted
   * (removed from the manifest).
   */
  record Delete(
      List<DataFragment> updatedFragments, List<Long> deletedFragmentIds, String predicate)
      implements Operation {
    public Delete {
      updatedFragments = List.copyOf(updatedFragments);
      deletedFragmentIds = List.copyOf(deletedFragmentIds);
    }

    @Override
    public OperationKind kind() {
      return OperationKind.DELETE;
    }

    Set<Long> touched() {
      return fragmentIds(updatedFragments, deletedFragmentIds);
    }

    @Override
    public Transaction toTransaction(long readVersion, String uuid) {
      return Transaction.newBuilder()
          .setReadVersion(readVersion)
          .setUuid(uuid)
          .setDelete(
              Transaction.Delete.newBuilder()
                  .addAllUpdatedFragments(updatedFragments)
                  .addAllDeletedFragmentIds(deletedFragmentIds)
                  .setPredicate(predicate == null ? "" : predicate))
          .build();
    }

    @Override
    public Resolution resolve(Transaction other) {
      return switch (OperationKind.of(other)) {
        case APPEND, CREATE_INDEX, RESERVE_FRAGMENTS, CLONE, PROJECT, UPDATE_CONFIG, UPDATE_BASES ->
            Resolution.COMPATIBLE;
        case DELETE ->
            sharesAFragment(
                    touched(),
                    other.getDelete().getUpdatedFragmentsList(),
                    other.getDelete().getDeletedFragmentIdsList())
                ? Resolution.REPLAN
                : Resolution.COMPATIBLE;
        case UPDATE, REWRITE, MERGE, DATA_REPLACEMENT -> Resolution.REPLAN;
        case OVERWRITE, RESTORE, UPDATE_MEM_WAL_STATE, UNKNOWN -> Resolution.INCOMPATIBLE;
      };
    }
  }

  /**
   * Rows changed in place (Lance's {@code Update} in {@code REWRITE_ROWS} mode, what UPDATE and
   * MERGE INTO commit): the old versions of changed rows and deleted rows get deletion files
   * ({@code updatedFragments}; fragments left without rows are {@code removedFragmentIds}), the new
   * versions of changed rows and inserted rows are {@code newFragments} (ids assigned at commit).
   * The changed rows were found by reading one version, so the operation cannot be re-planned: a
   * concurrent transaction that touched one of the same fragments makes it fail, one that touched
   * others (or only appended) lets it rebase.
   */
  record Update(
      List<Long> removedFragmentIds,
      List<DataFragment> updatedFragments,
      List<DataFragment> newFragments)
      implements Operation {
    public Update {
      removedFragmentIds = List.copyOf(removedFragmentIds);
      updatedFragments = List.copyOf(updatedFragments);
      newFragments = List.copyOf(newFragments);
    }

    @Override
    public OperationKind kind() {
      return OperationKind.UPDATE;
    }

    Set<Long> touched() {
      return fragmentIds(updatedFragments, removedFragmentIds);
    }

    @Override
    public Transaction toTransaction(long readVersion, String uuid) {
      // fields_modified stays empty: rows move to new fragments, no column of an existing
      // fragment is rewritten, so no index loses coverage of a fragment (as Lance's REWRITE_ROWS).
      return Transaction.newBuilder()
          .setReadVersion(readVersion)
          .setUuid(uuid)
          .setUpdate(
              Transaction.Update.newBuilder()
                  .addAllRemovedFragmentIds(removedFragmentIds)
                  .addAllUpdatedFragments(updatedFragments)
                  .addAllNewFragments(
                      // the row ids of new rows are assigned at commit (decision D56)
                      newFragments.stream()
                          .map(
                              f ->
                                  f.toBuilder()
                                      .clearInlineRowIds()
                                      .clearInlineCreatedAtVersions()
                                      .clearInlineLastUpdatedAtVersions()
                                      .build())
                          .toList())
                  .setUpdateMode(Transaction.UpdateMode.REWRITE_ROWS))
          .build();
    }

    @Override
    public Resolution resolve(Transaction other) {
      return switch (OperationKind.of(other)) {
        // A dropped or renamed column keeps every field id: the new rows stay readable, a dropped
        // column's values in them are never read.
        case APPEND, CREATE_INDEX, RESERVE_FRAGMENTS, CLONE, UPDATE_CONFIG, UPDATE_BASES, PROJECT ->
            Resolution.COMPATIBLE;
        case DELETE ->
            overlaps(
                other.getDelete().getUpdatedFragmentsList(),
                other.getDelete().getDeletedFragmentIdsList());
        case UPDATE ->
            overlaps(
                other.getUpdate().getUpdatedFragmentsList(),
                other.getUpdate().getRemovedFragmentIdsList());
        // Rewrites and data replacements are not modelled (their fragments are unknown here), added
        // columns would be missing from the new rows, and replaced data invalidates the rows read.
        case REWRITE, DATA_REPLACEMENT, MERGE, OVERWRITE, RESTORE, UPDATE_MEM_WAL_STATE, UNKNOWN ->
            Resolution.INCOMPATIBLE;
      };
    }

    private Resolution overlaps(List<DataFragment> updated, List<Long> removed) {
      return sharesAFragment(touched(), updated, removed)
          ? Resolution.INCOMPATIBLE
          : Resolution.COMPATIBLE;
    }
  }

  /** Replaces all data (and the schema); also creates a dataset. Drops every index. */
  record Overwrite(
      List<Field> schema,
      Map<String, ByteString> schemaMetadata,
      List<DataFragment> fragments,
      String dataFormatVersion,
      boolean stableRowIds,
      List<dev.lancelot.engine.internal.format.proto.TableProtos.BasePath> initialBases)
      implements Operation {
    public Overwrite {
      schema = List.copyOf(schema);
      schemaMetadata = Map.copyOf(schemaMetadata);
      fragments = List.copyOf(fragments);
      initialBases = List.copyOf(initialBases);
    }

    /** An overwrite (or create) registering no new base. */
    public Overwrite(
        List<Field> schema,
        Map<String, ByteString> schemaMetadata,
        List<DataFragment> fragments,
        String dataFormatVersion,
        boolean stableRowIds) {
      this(schema, schemaMetadata, fragments, dataFormatVersion, stableRowIds, List.of());
    }

    @Override
    public OperationKind kind() {
      return OperationKind.OVERWRITE;
    }

    @Override
    public Transaction toTransaction(long readVersion, String uuid) {
      return Transaction.newBuilder()
          .setReadVersion(readVersion)
          .setUuid(uuid)
          .setOverwrite(
              Transaction.Overwrite.newBuilder()
                  .addAllFragments(fragments)
                  .addAllSchema(schema)
                  .putAllSchemaMetadata(schemaMetadata)
                  .addAllInitialBases(initialBases))
          .build();
    }

    @Override
    public Resolution resolve(Transaction other) {
      return switch (OperationKind.of(other)) {
        case UPDATE_MEM_WAL_STATE, UNKNOWN -> Resolution.INCOMPATIBLE;
        default -> Resolution.COMPATIBLE;
      };
    }
  }

  /**
   * An old version made the latest again (Lance's {@code Restore}): the new version is {@code
   * manifest}'s content (schema, fragments, config, feature flags) with {@code indices}, its index
   * section, recorded as {@code Restore { version }}. Like an overwrite, it replaces whatever was
   * committed meanwhile, so it rebases over every operation this project models; every other
   * operation fails when a restore was committed after its read version.
   */
  record Restore(long version, Manifest manifest, List<IndexMetadata> indices)
      implements Operation {
    public Restore {
      indices = List.copyOf(indices);
    }

    @Override
    public OperationKind kind() {
      return OperationKind.RESTORE;
    }

    @Override
    public Transaction toTransaction(long readVersion, String uuid) {
      return Transaction.newBuilder()
          .setReadVersion(readVersion)
          .setUuid(uuid)
          .setRestore(Transaction.Restore.newBuilder().setVersion(version))
          .build();
    }

    @Override
    public Resolution resolve(Transaction other) {
      return switch (OperationKind.of(other)) {
        case UPDATE_MEM_WAL_STATE, UNKNOWN -> Resolution.INCOMPATIBLE;
        default -> Resolution.COMPATIBLE;
      };
    }
  }

  /**
   * Compaction (Lance's {@code Rewrite}): each group's old fragments are replaced by new fragments
   * holding the same live rows, and each rewritten index segment (old uuid) is replaced by its
   * remapped copy (new uuid). The new fragments carry their ids already: the remapped segments
   * store row addresses made of them, so the ids cannot change at commit time. Any concurrent
   * commit that adds fragments or changes the rewritten fragments or indexes therefore conflicts.
   */
  record Rewrite(
      List<Transaction.Rewrite.RewriteGroup> groups,
      List<Transaction.Rewrite.RewrittenIndex> rewrittenIndices)
      implements Operation {
    public Rewrite {
      groups = List.copyOf(groups);
      rewrittenIndices = List.copyOf(rewrittenIndices);
    }

    @Override
    public OperationKind kind() {
      return OperationKind.REWRITE;
    }

    Set<Long> oldFragmentIds() {
      Set<Long> ids = new HashSet<>();
      for (Transaction.Rewrite.RewriteGroup g : groups) {
        g.getOldFragmentsList().forEach(f -> ids.add(f.getId()));
      }
      return ids;
    }

    @Override
    public Transaction toTransaction(long readVersion, String uuid) {
      return Transaction.newBuilder()
          .setReadVersion(readVersion)
          .setUuid(uuid)
          .setRewrite(
              Transaction.Rewrite.newBuilder()
                  .addAllGroups(groups)
                  .addAllRewrittenIndices(rewrittenIndices))
          .build();
    }

    @Override
    public Resolution resolve(Transaction other) {
      return switch (OperationKind.of(other)) {
        case UPDATE_CONFIG, UPDATE_BASES -> Resolution.COMPATIBLE;
        case DELETE -> {
          Set<Long> mine = oldFragmentIds();
          for (DataFragment f : other.getDelete().getUpdatedFragmentsList()) {
            if (mine.contains(f.getId())) {
              yield Resolution.INCOMPATIBLE;
            }
          }
          for (long id : other.getDelete().getDeletedFragmentIdsList()) {
            if (mine.contains(id)) {
              yield Resolution.INCOMPATIBLE;
            }
          }
          yield Resolution.COMPATIBLE;
        }
        default -> Resolution.INCOMPATIBLE;
      };
    }
  }

  /** Adds index segments and removes replaced ones. */
  record CreateIndex(List<IndexMetadata> newIndices, List<IndexMetadata> removedIndices)
      implements Operation {
    public CreateIndex {
      newIndices = List.copyOf(newIndices);
      removedIndices = List.copyOf(removedIndices);
    }

    @Override
    public OperationKind kind() {
      return OperationKind.CREATE_INDEX;
    }

    @Override
    public Transaction toTransaction(long readVersion, String uuid) {
      return Transaction.newBuilder()
          .setReadVersion(readVersion)
          .setUuid(uuid)
          .setCreateIndex(
              Transaction.CreateIndex.newBuilder()
                  .addAllNewIndices(newIndices)
                  .addAllRemovedIndices(removedIndices))
          .build();
    }

    @Override
    public Resolution resolve(Transaction other) {
      return switch (OperationKind.of(other)) {
        case APPEND,
            CLONE,
            UPDATE_BASES,
            DELETE,
            UPDATE,
            MERGE,
            RESERVE_FRAGMENTS,
            PROJECT,
            UPDATE_CONFIG ->
            Resolution.COMPATIBLE;
        case CREATE_INDEX -> {
          // Two commits touching one index name (a build, an optimize, a drop) conflict.
          Set<String> mine = new HashSet<>();
          newIndices.forEach(i -> mine.add(i.getName()));
          removedIndices.forEach(i -> mine.add(i.getName()));
          Transaction.CreateIndex theirs = other.getCreateIndex();
          for (IndexMetadata i : theirs.getNewIndicesList()) {
            if (mine.contains(i.getName())) {
              yield Resolution.INCOMPATIBLE;
            }
          }
          for (IndexMetadata i : theirs.getRemovedIndicesList()) {
            if (mine.contains(i.getName())) {
              yield Resolution.INCOMPATIBLE;
            }
          }
          yield Resolution.COMPATIBLE;
        }
        case REWRITE, DATA_REPLACEMENT, OVERWRITE, RESTORE, UPDATE_MEM_WAL_STATE, UNKNOWN ->
            Resolution.INCOMPATIBLE;
      };
    }
  }

  /**
   * Columns added (Lance's {@code Merge}): {@code fragments} are all the fragments of the new
   * version, each with its data files (a new one holding the added fields, or unchanged when the
   * added columns read as nulls), and {@code schema} the new schema. The fragment list was read
   * from one version, so anything that changed fragments or the schema meanwhile makes it fail;
   * index builds and config changes are rebased over.
   */
  record Merge(
      List<DataFragment> fragments, List<Field> schema, Map<String, ByteString> schemaMetadata)
      implements Operation {
    public Merge {
      fragments = List.copyOf(fragments);
      schema = List.copyOf(schema);
      schemaMetadata = Map.copyOf(schemaMetadata);
    }

    @Override
    public OperationKind kind() {
      return OperationKind.MERGE;
    }

    @Override
    public Transaction toTransaction(long readVersion, String uuid) {
      return Transaction.newBuilder()
          .setReadVersion(readVersion)
          .setUuid(uuid)
          .setMerge(
              Transaction.Merge.newBuilder()
                  .addAllFragments(fragments)
                  .addAllSchema(schema)
                  .putAllSchemaMetadata(schemaMetadata))
          .build();
    }

    @Override
    public Resolution resolve(Transaction other) {
      return switch (OperationKind.of(other)) {
        case CREATE_INDEX, RESERVE_FRAGMENTS, UPDATE_CONFIG, UPDATE_BASES, CLONE ->
            Resolution.COMPATIBLE;
        default -> Resolution.INCOMPATIBLE;
      };
    }
  }

  /**
   * Columns dropped or renamed (Lance's {@code Project}): only the schema changes; data files keep
   * the dropped fields' data, which no reader asks for any more, and index segments on a dropped
   * field leave the version. Field ids never change, so appends, deletes, row-level changes,
   * compactions and index builds committed meanwhile are rebased over; other schema changes,
   * overwrites and restores are not.
   */
  record Project(List<Field> schema) implements Operation {
    public Project {
      schema = List.copyOf(schema);
    }

    @Override
    public OperationKind kind() {
      return OperationKind.PROJECT;
    }

    @Override
    public Transaction toTransaction(long readVersion, String uuid) {
      return Transaction.newBuilder()
          .setReadVersion(readVersion)
          .setUuid(uuid)
          .setProject(Transaction.Project.newBuilder().addAllSchema(schema))
          .build();
    }

    @Override
    public Resolution resolve(Transaction other) {
      return switch (OperationKind.of(other)) {
        case APPEND,
            DELETE,
            UPDATE,
            CREATE_INDEX,
            REWRITE,
            RESERVE_FRAGMENTS,
            UPDATE_CONFIG,
            UPDATE_BASES,
            CLONE ->
            Resolution.COMPATIBLE;
        case MERGE, PROJECT, OVERWRITE, RESTORE, DATA_REPLACEMENT, UPDATE_MEM_WAL_STATE, UNKNOWN ->
            Resolution.INCOMPATIBLE;
      };
    }
  }

  /**
   * Table config entries set ({@code value} present) or removed (absent), Lance's {@code
   * UpdateConfig}. Compatible with every data change; a concurrent change of the same keys, an
   * overwrite or a restore makes it fail.
   */
  record UpdateConfig(Map<String, java.util.Optional<String>> entries) implements Operation {
    public UpdateConfig {
      entries = Map.copyOf(entries);
    }

    @Override
    public OperationKind kind() {
      return OperationKind.UPDATE_CONFIG;
    }

    @Override
    public Transaction toTransaction(long readVersion, String uuid) {
      Transaction.UpdateMap.Builder map = Transaction.UpdateMap.newBuilder();
      entries.entrySet().stream()
          .sorted(Map.Entry.comparingByKey())
          .forEach(
              e -> {
                Transaction.UpdateMapEntry.Builder entry =
                    Transaction.UpdateMapEntry.newBuilder().setKey(e.getKey());
                e.getValue().ifPresent(entry::setValue);
                map.addUpdateEntries(entry);
              });
      return Transaction.newBuilder()
          .setReadVersion(readVersion)
          .setUuid(uuid)
          .setUpdateConfig(Transaction.UpdateConfig.newBuilder().setConfigUpdates(map))
          .build();
    }

    @Override
    public Resolution resolve(Transaction other) {
      return switch (OperationKind.of(other)) {
        case UPDATE_CONFIG -> {
          if (!other.hasUpdateConfig() || !other.getUpdateConfig().hasConfigUpdates()) {
            yield Resolution.INCOMPATIBLE; // written in a form not modelled here: keys unknown
          }
          for (Transaction.UpdateMapEntry e :
              other.getUpdateConfig().getConfigUpdates().getUpdateEntriesList()) {
            if (entries.containsKey(e.getKey())) {
              yield Resolution.INCOMPATIBLE;
            }
          }
          yield other.getUpdateConfig().getConfigUpdates().getReplace()
              ? Resolution.INCOMPATIBLE
              : Resolution.COMPATIBLE;
        }
        case OVERWRITE, RESTORE, UPDATE_MEM_WAL_STATE, UNKNOWN -> Resolution.INCOMPATIBLE;
        default -> Resolution.COMPATIBLE;
      };
    }
  }
}
