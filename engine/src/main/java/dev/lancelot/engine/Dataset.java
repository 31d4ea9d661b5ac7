package dev.lancelot.engine;

import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.expr.Predicate;
import dev.lancelot.engine.index.IndexCatalog;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.IndexStatistics;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.format.FeatureFlags;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexMetadata;
import dev.lancelot.engine.internal.index.IndexInternals;
import dev.lancelot.engine.internal.scan.FragmentReader;
import dev.lancelot.engine.internal.scan.ScanSpec;
import dev.lancelot.engine.internal.table.Committer;
import dev.lancelot.engine.internal.table.DatasetContext;
import dev.lancelot.engine.internal.table.Operation;
import dev.lancelot.engine.internal.table.OperationKind;
import dev.lancelot.engine.internal.table.Refs;
import dev.lancelot.engine.internal.table.RowIds;
import dev.lancelot.engine.internal.table.Snapshot;
import dev.lancelot.engine.internal.table.WriteChecks;
import dev.lancelot.engine.schema.LanceField;
import dev.lancelot.engine.schema.LanceSchema;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.hadoop.conf.Configuration;
import org.roaringbitmap.RoaringBitmap;

/**
 * One version of a Lance dataset: the entry point of the engine.
 *
 * <p>A {@code Dataset} is an immutable view of one version; writes return a new {@code Dataset} for
 * the version they committed. Instances are thread-safe. Close the dataset to release the allocator
 * it created (when none was supplied in {@link OpenOptions}).
 */
public final class Dataset implements AutoCloseable {
  private final DatasetContext ctx;
  private final Snapshot snapshot;
  private final LanceSchema schema;
  private final boolean ownsAllocator;
  private final VersionRows rows;

  /** The index catalog of this version, built on first use (immutable, like the snapshot). */
  private volatile IndexCatalog indexes;

  static {
    DatasetInternals.register(new DatasetAccess());
  }

  Dataset(DatasetContext ctx, Snapshot snapshot, boolean ownsAllocator) {
    this.ctx = ctx;
    this.snapshot = snapshot;
    this.ownsAllocator = ownsAllocator;
    this.rows = new VersionRows(ctx, snapshot);
    this.schema = DatasetStorage.readableSchema(ctx, snapshot);
  }

  // ---------------------------------------------------------------- opening

  public static Dataset open(String location) {
    return open(location, OpenOptions.defaults());
  }

  /**
   * Opens the dataset at {@code location} as {@code options} say: the latest version, a version
   * ({@link OpenOptions#withVersion}), the version a tag names ({@link OpenOptions#withTag}, on the
   * tag's branch), or a branch ({@link OpenOptions#withBranch}, its latest version or the version
   * given).
   */
  public static Dataset open(String location, OpenOptions options) {
    return DatasetStorage.open(location, options);
  }

  /**
   * Version {@code version} of the dataset at {@code location} from the {@link Session#shared()
   * shared session}'s process-wide cache ({@link Session#openCached}): read once per location,
   * Hadoop settings and version; the instance is shared, so closing it releases nothing.
   */
  public static Dataset openCached(String location, long version, Configuration conf) {
    return Session.shared().openCached(location, version, conf);
  }

  /**
   * The latest version of the dataset at {@code location} through the same cache as {@link
   * #openCached}: each call lists the version directory (so a new commit is seen at once); a
   * version already opened is not read again.
   */
  public static Dataset openLatestCached(String location, Configuration conf) {
    return Session.shared().openLatestCached(location, conf);
  }

  /**
   * Forgets every cached version of the dataset at {@code location}, for when the dataset was
   * removed (a dataset created there later starts again at version 1). Datasets already handed out
   * stay usable.
   */
  public static void evictCached(String location) {
    Session.shared().evict(location);
  }

  /** True when a dataset (at least one committed version) exists at {@code location}. */
  public static boolean exists(String location, Configuration conf) {
    return DatasetStorage.exists(location, conf);
  }

  /** The same dataset at another version. The new instance shares storage and allocator. */
  public Dataset checkout(long version) {
    return new Dataset(ctx, DatasetStorage.loadVersion(ctx, version), false);
  }

  /** The latest version of this dataset, which may be newer than this one. */
  public Dataset checkoutLatest() {
    return new Dataset(
        ctx,
        DatasetStorage.loadLatest(ctx).orElseThrow(() -> DatasetStorage.notFound(ctx.paths())),
        false);
  }

  /** Commits version {@code version}'s content as a new latest version (Lance's Restore, D55). */
  public Dataset restore(long version) {
    return DatasetRestore.restore(this, version);
  }

  /** The latest version committed at or before {@code timestamp}, e.g. to restore it. */
  public long versionAt(Instant timestamp) {
    return DatasetRestore.versionAt(this, timestamp);
  }

  // ---------------------------------------------------------------- writing

  /**
   * Writes {@code data} to {@code location} as {@code options.mode()} says and commits one version.
   * The reader is consumed but not closed.
   */
  public static Dataset write(String location, ArrowReader data, WriteOptions options) {
    return write(location, data, options, OpenOptions.defaults());
  }

  public static Dataset write(
      String location, ArrowReader data, WriteOptions options, OpenOptions open) {
    return DatasetWrites.write(
        DatasetStorage.context(
            location, open.hadoopConf(), open.allocator(), open.session().memory()),
        location,
        data,
        options);
  }

  /** Appends {@code data} to this dataset and returns the new version. */
  public Dataset append(ArrowReader data) {
    // Through this dataset's storage, so the Hadoop settings it was opened with apply to the
    // append.
    return DatasetWrites.write(
        new DatasetStorage.ContextAndOwnership(ctx, false),
        location(),
        data,
        WriteOptions.of(WriteMode.APPEND));
  }

  /**
   * Deletes the rows matching {@code filter} and returns the new version (this one when none
   * match).
   */
  public Dataset delete(String filter) {
    return DatasetRowChanges.delete(this, filter);
  }

  /**
   * Commits row-level changes planned by reading this version (UPDATE, MERGE INTO, DELETE) as one
   * Lance {@code Update}: {@code deletes} (fragment id to row offsets) get deletion files, {@code
   * added} (from a {@link dev.lancelot.engine.distributed.FragmentWriter}) become fragments. A
   * concurrent commit to the same fragments fails it ({@link CommitConflictException}).
   */
  public Dataset commitRowChanges(Map<Long, RoaringBitmap> deletes, List<FragmentMetadata> added) {
    return DatasetRowChanges.commitRowChanges(this, deletes, added);
  }

  // ---------------------------------------------------------------- schema evolution

  /**
   * Adds nullable columns that read as null in every row, and returns the new version: a Lance
   * {@code Merge} changing only the schema (no data file is written; Lance 2.x readers return nulls
   * for a field no data file stores). Refuses existing names and NOT NULL columns.
   */
  public Dataset addColumns(List<Field> columns) {
    LanceSchema added = ColumnChanges.addedFields(this, columns, false);
    return commitOperation(ColumnChanges.merge(this, added, Map.of()));
  }

  /**
   * The columns a distributed backfill will add to this version, numbered as {@link
   * #commitAddedColumns} expects; checks the names as {@link #addColumns(List, List,
   * ColumnBackfill)} does.
   */
  public LanceSchema planAddedColumns(List<Field> columns) {
    return ColumnChanges.addedFields(this, columns, true);
  }

  /**
   * Adds columns whose values {@code backfill} computes from the columns {@code inputs}: one new
   * data file per fragment, committed as one Lance {@code Merge}; a concurrent change to fragments
   * or the schema fails it ({@link CommitConflictException}, files deleted).
   */
  public Dataset addColumns(List<Field> columns, List<String> inputs, ColumnBackfill backfill) {
    return ColumnChanges.addComputed(this, columns, inputs, backfill, null);
  }

  /**
   * As {@link #addColumns(List, List, ColumnBackfill)}, the new data files written to base {@code
   * targetBase} (a name or path this version registers, as {@link WriteOptions#targetBase()}).
   */
  public Dataset addColumns(
      List<Field> columns, List<String> inputs, ColumnBackfill backfill, String targetBase) {
    return ColumnChanges.addComputed(this, columns, inputs, backfill, targetBase);
  }

  /**
   * Commits the data files of a distributed backfill (one per fragment of this version, from {@link
   * dev.lancelot.engine.distributed.DistributedWrite#writeAddedColumns}) as one {@code Merge}
   * version adding {@code added}. On failure the caller deletes the files with {@link
   * dev.lancelot.engine.distributed.DistributedWrite#abort}.
   */
  public Dataset commitAddedColumns(LanceSchema added, List<FragmentMetadata> files) {
    return ColumnChanges.commitAdded(this, added, files);
  }

  /**
   * Drops top-level columns and returns the new version: a Lance {@code Project} changing only the
   * schema (the values stay in the data files, unread, until the fragments are rewritten). Index
   * segments on a dropped column leave the version, as in Lance.
   */
  public Dataset dropColumns(List<String> names) {
    return commitOperation(ColumnChanges.drop(this, names));
  }

  /**
   * Renames a top-level column and returns the new version (a Lance {@code Project}; the field
   * keeps its id, so data files and index segments stay valid).
   */
  public Dataset renameColumn(String name, String newName) {
    return commitOperation(ColumnChanges.rename(this, name, newName));
  }

  /**
   * Sets (value present) or removes (value empty) entries of the table config (Lance's {@code
   * UpdateConfig}) and returns the new version.
   */
  public Dataset updateConfig(Map<String, Optional<String>> entries) {
    if (entries.isEmpty()) {
      return this;
    }
    return commitOperation(new Operation.UpdateConfig(entries));
  }

  /** The table config of this version (Lance's {@code Manifest.config}). */
  public Map<String, String> config() {
    return snapshot.manifest().getConfigMap();
  }

  /**
   * Commits index segments written under {@code _indices/<uuid>/} (and removes replaced ones) as a
   * new version. Concurrent appends and deletes are compatible; a concurrent commit of an index
   * with the same name is a conflict.
   */
  Dataset commitIndexes(List<IndexMetadata> added, List<IndexMetadata> removed) {
    return commitOperation(new Operation.CreateIndex(added, removed));
  }

  /**
   * Drops index {@code name}, every segment of it, as a new version (Lance's {@code drop_index}: an
   * index commit that only removes). Searches and filtered scans of the new version no longer use
   * it; its files stay until {@link #cleanup} removes the versions that reference them. A
   * concurrent commit that builds, optimizes or drops an index of the same name conflicts.
   *
   * @throws InvalidInputException when this version has no index of that name
   */
  public Dataset dropIndex(String name) {
    List<IndexSegment> segments = indexes().segments(name);
    if (segments.isEmpty()) {
      throw IndexStatistics.noSuchIndex(this, name, "drop");
    }
    return commitIndexes(List.of(), segments.stream().map(IndexInternals::proto).toList());
  }

  /**
   * Compacts this version: rewrites small fragments and fragments with many deleted rows into
   * larger ones and commits them, with every index segment that covered them rewritten for the new
   * row addresses, as one {@code Rewrite} version (see {@link CompactionOptions} and
   * docs/decisions.md D23). Returns this dataset, uncommitted, when nothing needs compacting.
   */
  public CompactionResult compact(CompactionOptions options) {
    return dev.lancelot.engine.internal.maintenance.Compactor.compact(this, options);
  }

  /**
   * Removes old versions and the files no kept version references ({@link CleanupOptions}); the
   * latest and tagged versions are kept. On a branch, its own versions and files under {@code
   * tree/<branch>/}, keeping what tags and other branches reach (decision D62).
   */
  public CleanupResult cleanup(CleanupOptions options) {
    return DatasetStorage.cleanup(this, options);
  }

  /** Commits an operation planned against this version. */
  Dataset commitOperation(Operation op) {
    return new Dataset(ctx, committer().commit(snapshot, op), false);
  }

  /** The indexes of this version. */
  public IndexCatalog indexes() {
    IndexCatalog c = indexes;
    if (c == null) {
      c = IndexInternals.catalog(snapshot);
      indexes = c;
    }
    return c;
  }

  // ---------------------------------------------------------------- reading

  public Scanner newScan() {
    return Scanner.of(this);
  }

  /** Rows in this version (deletions applied), from the manifest alone. */
  public long countRows() {
    return snapshot.countRows();
  }

  public long countRows(String filter) {
    return newScan().filter(filter).countRows();
  }

  /**
   * The rows at {@code rowAddresses} ({@code (fragment << 32) | offset}), in the order asked;
   * deleted rows and addresses of fragments absent from this version are left out. Reads only the
   * pages holding the requested rows.
   */
  public VectorSchemaRoot take(long[] rowAddresses, List<String> columns) {
    List<LanceField> fields = new ArrayList<>();
    for (String c : columns) {
      fields.add(field(c));
    }
    return RowTaker.take(this, rowAddresses, fields);
  }

  /**
   * The rows whose {@code _rowid}s are {@code rowIds} (a dataset's stable row ids when it has them,
   * else row addresses), in the order asked; ids that no live row of this version has (deleted,
   * never written) are left out. Reads only the pages holding the rows.
   */
  public VectorSchemaRoot takeRows(long[] rowIds, List<String> columns) {
    return take(RowTaker.liveAddresses(rowIds()::addressesOf, rowIds), columns);
  }

  /**
   * The value of blob column {@code column} ({@link LanceField#isBlob()}; a blob field inside
   * structs by its dotted path, e.g. {@code "s.b"}) at row {@code rowAddress} ({@code (fragment <<
   * 32) | offset}), to read in ranges; empty when the value (or a struct holding it) is null. Reads
   * only the row's descriptor; the bytes are read by the returned {@link Blob}, which the caller
   * closes. A scan or {@link #take} of the column returns the bytes themselves.
   *
   * @throws InvalidInputException if the column is not a blob column (or is inside a list), or the
   *     row does not exist or is deleted in this version
   */
  public Optional<Blob> openBlob(String column, long rowAddress) {
    return Blob.open(this, column, rowAddress);
  }

  // ---------------------------------------------------------------- metadata

  public String location() {
    return ctx.paths().root();
  }

  /**
   * The branch this dataset is on (Lance's manifest field {@code branch}), empty for the main
   * branch. A branch's {@link #location()} is {@code <dataset>/tree/<branch>}.
   */
  public Optional<String> branch() {
    String b = snapshot.manifest().getBranch();
    return b.isEmpty() ? Optional.empty() : Optional.of(b);
  }

  /**
   * Throws unless lancelot can commit any change on top of this version, row-level changes
   * (updates, merges) included: every feature flag it carries is one lancelot writes for such a
   * change. Distributed writers call it before any task runs; every commit checks it again for its
   * own operation. A dataset with stable row ids is accepted (row-level changes keep the id of each
   * row they rewrite, decision D56); so is a branch (D58).
   *
   * @throws LancelotException naming what stops the write
   */
  public void checkWritable() {
    WriteChecks.check(ctx.paths().root(), snapshot.manifest(), OperationKind.UPDATE);
  }

  /**
   * Throws unless lancelot can append rows on top of this version: as {@link #checkWritable()}
   * (appended rows of a dataset with stable row ids take fresh ids). Distributed appends call it
   * before any task runs; the commit checks it again.
   *
   * @throws LancelotException naming what stops the append
   */
  public void checkAppendable() {
    WriteChecks.check(ctx.paths().root(), snapshot.manifest(), OperationKind.APPEND);
  }

  /**
   * Whether this version uses stable row ids (feature flag 2): {@code _rowid} is then each row's
   * stable id rather than its address (docs/semantics.md F7).
   */
  public boolean stableRowIds() {
    return (snapshot.manifest().getReaderFeatureFlags() & FeatureFlags.STABLE_ROW_IDS) != 0;
  }

  /** The location of the main branch of this dataset: {@link #location()} unless on a branch. */
  public String rootLocation() {
    return Refs.mainRoot(location(), snapshot.manifest().getBranch());
  }

  /**
   * The tags of this dataset (kept at its root, shared by every branch): list, create, move and
   * delete them, as Lance 7 does.
   */
  public Tags tags() {
    return new Tags(ctx.io(), rootLocation());
  }

  /** The branches of this dataset, by name (read from its root, whatever branch this is on). */
  public List<Branch> branches() {
    return DatasetStorage.branches(ctx.io(), rootLocation());
  }

  /**
   * Creates branch {@code name} from {@code version} of branch {@code from} (empty or {@code
   * "main"}: the main branch), as Lance 7 does: a ref under {@code _refs/branches/} and a first
   * version under {@code tree/<name>/} that reaches its parent's files without copying them.
   * Refused, changing nothing, for an invalid or existing name, an unknown branch or version.
   */
  public Branch createBranch(String name, Optional<String> from, long version) {
    return BranchOps.create(ctx.io(), rootLocation(), name, from, version);
  }

  /** Creates branch {@code name} from the version (and branch) tag {@code tag} points at. */
  public Branch createBranchFromTag(String name, String tag) {
    Tag t = tags().get(tag);
    return createBranch(name, t.branch(), t.version());
  }

  /**
   * Deletes branch {@code name} and its versions. Refused while a branch created from it or a tag
   * pointing into it remains.
   */
  public void deleteBranch(String name) {
    BranchOps.delete(ctx, rootLocation(), name);
  }

  public long version() {
    return snapshot.version();
  }

  public Schema schema() {
    return schema.toArrow();
  }

  public LanceSchema lanceSchema() {
    return schema;
  }

  public List<FragmentInfo> fragments() {
    return snapshot.fragments().stream().map(snapshot::info).toList();
  }

  /**
   * The operation that committed this version, as {@link VersionInfo#operation()} names it ({@code
   * "append"}, {@code "rewrite"}, {@code "create index"}, …; {@code "unknown"} without a
   * transaction).
   */
  public String operation() {
    return DatasetStorage.operationOf(ctx, snapshot).displayName();
  }

  /** Every committed version, oldest first. */
  public List<VersionInfo> versions() {
    return DatasetStorage.versions(ctx);
  }

  /**
   * The base paths this version registers besides its root (Lance's multi-base datasets and shallow
   * clones); empty for most datasets.
   */
  public List<BasePathInfo> basePaths() {
    return snapshot.bases().infos();
  }

  /**
   * The dataset's data storage version, e.g. "2.1": the format of its data files, or, in a dataset
   * whose files have different versions (feature flag 256, see {@link #dataFileVersions()}), the
   * version Lance writes new files in unless told otherwise.
   */
  public String dataStorageVersion() {
    return snapshot.manifest().getDataFormat().getVersion();
  }

  /**
   * The format versions of this version's data files as their manifest entries record them (e.g.
   * {@code [2.1, 2.2]}), each file being read by its own version.
   */
  public SortedSet<String> dataFileVersions() {
    return rows.dataFileVersions();
  }

  @Override
  public void close() {
    if (ownsAllocator) {
      ctx.allocator().close();
    }
  }

  // ---------------------------------------------------------------- engine internals

  /** The version's manifest view. */
  Snapshot snapshot() {
    return snapshot;
  }

  DatasetContext context() {
    return ctx;
  }

  public LanceField field(String name) {
    return schema
        .field(name)
        .orElseThrow(
            () ->
                new InvalidInputException(
                    "Cannot find column \""
                        + name
                        + "\" in "
                        + location()
                        + ": the dataset's columns are "
                        + schema.names()
                        + "."));
  }

  /**
   * Parses and binds a SQL filter against this version's schema: where a filter given as text
   * becomes the bound predicate that scans, search plans and Spark tasks carry.
   */
  public BoundPredicate bindFilter(String sql) {
    return BoundPredicate.bind(sql, schema.toArrow());
  }

  /**
   * Binds a filter given as a {@link dev.lancelot.engine.expr.Predicate} (e.g. translated from
   * another engine's expressions) against this version's schema, without going through text.
   */
  public BoundPredicate bindFilter(Predicate predicate) {
    return BoundPredicate.bind(predicate, schema.toArrow());
  }

  /**
   * Offsets of the deleted rows of fragment {@code fragmentId} of this version (empty when none are
   * deleted).
   *
   * @throws InvalidInputException if this version has no such fragment
   */
  public RoaringBitmap deletedRows(long fragmentId) {
    return deletedRows(DatasetStorage.fragment(this, fragmentId, "read deleted rows of"));
  }

  /** Deleted row offsets of a fragment (cached). */
  RoaringBitmap deletedRows(DataFragment fragment) {
    return rows.deletedRows(fragment);
  }

  /** Row ids of this version (stable ids, or addresses when the dataset has none). */
  RowIds rowIds() {
    return rows.rowIds();
  }

  FragmentReader openFragment(DataFragment fragment) {
    return new FragmentReader(ctx, fragment, snapshot.entry().location(), snapshot.bases());
  }

  CloseableIterator<VectorSchemaRoot> executeScan(
      ScanTask task, ScanSpec spec, BufferAllocator allocator) {
    return DatasetScans.execute(this, task, spec, allocator);
  }

  Committer committer() {
    return new Committer(ctx.io(), ctx.paths(), snapshot.entry().naming());
  }
}
