package dev.lancelot.engine;

import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.index.IndexCatalog;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.format.DeletionFiles;
import dev.lancelot.engine.internal.format.FeatureFlags;
import dev.lancelot.engine.internal.format.ManifestFile;
import dev.lancelot.engine.internal.format.ManifestNaming;
import dev.lancelot.engine.internal.format.SchemaProtos;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexMetadata;
import dev.lancelot.engine.internal.index.IndexInternals;
import dev.lancelot.engine.internal.scan.FragmentReader;
import dev.lancelot.engine.internal.scan.FragmentScan;
import dev.lancelot.engine.internal.scan.ScanSpec;
import dev.lancelot.engine.internal.table.Committer;
import dev.lancelot.engine.internal.table.DatasetContext;
import dev.lancelot.engine.internal.table.DatasetPaths;
import dev.lancelot.engine.internal.table.Operation;
import dev.lancelot.engine.internal.table.OperationKind;
import dev.lancelot.engine.internal.table.Snapshot;
import dev.lancelot.engine.internal.table.VersionLog;
import dev.lancelot.engine.internal.util.MemoryCache;
import dev.lancelot.engine.internal.write.FragmentWriter;
import dev.lancelot.engine.io.CommitOutcomeUnknownException;
import dev.lancelot.engine.io.FileIO;
import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.io.RetryPolicy;
import dev.lancelot.engine.io.RetryingFileIO;
import dev.lancelot.engine.io.StorageException;
import dev.lancelot.engine.schema.LanceField;
import dev.lancelot.engine.schema.LanceSchema;
import dev.lancelot.engine.schema.SchemaException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.hadoop.conf.Configuration;
import org.roaringbitmap.RoaringBitmap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One version of a Lance dataset: the entry point of the engine.
 *
 * <p>A {@code Dataset} is an immutable view of one version; writes return a new {@code Dataset} for
 * the version they committed. Instances are thread-safe. Close the dataset to release the allocator
 * it created (when none was supplied in {@link OpenOptions}).
 */
public final class Dataset implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Dataset.class);
  private final DatasetContext ctx;
  private final Snapshot snapshot;
  private final LanceSchema schema;
  private final boolean ownsAllocator;
  private final Map<Long, RoaringBitmap> deletions = new ConcurrentHashMap<>();

  /** The index catalog of this version, built on first use (immutable, like the snapshot). */
  private volatile IndexCatalog indexes;

  static {
    DatasetInternals.register(
        new DatasetInternals.Access() {
          @Override
          public Snapshot snapshot(Dataset dataset) {
            return dataset.snapshot;
          }

          @Override
          public DatasetContext context(Dataset dataset) {
            return dataset.ctx;
          }

          @Override
          public Dataset commit(Dataset dataset, Operation operation) {
            return dataset.commitOperation(operation);
          }

          @Override
          public RoaringBitmap deletedRows(Dataset dataset, DataFragment fragment) {
            return dataset.deletedRows(fragment);
          }

          @Override
          public FragmentWriter newFragmentWriter(
              String location, Configuration conf, LanceSchema schema, WriteOptions options) {
            return Dataset.newFragmentWriter(location, conf, schema, options);
          }

          @Override
          public FragmentMetadata fragmentMetadata(DataFragment fragment) {
            return new FragmentMetadata(fragment);
          }

          @Override
          public DataFragment fragment(FragmentMetadata metadata) {
            return metadata.toProto();
          }
        });
  }

  private Dataset(DatasetContext ctx, Snapshot snapshot, boolean ownsAllocator) {
    this.ctx = ctx;
    this.snapshot = snapshot;
    this.ownsAllocator = ownsAllocator;
    FeatureFlags.checkReadable(ctx.paths().root(), snapshot.manifest().getReaderFeatureFlags());
    try {
      this.schema =
          SchemaProtos.fromProtos(
              snapshot.manifest().getFieldsList(), snapshot.manifest().getSchemaMetadataMap());
      this.schema.toArrow(); // every logical type is readable
    } catch (SchemaException e) {
      throw new SchemaException(
          e.getMessage() + " (the schema of " + snapshot.entry().location() + ")", e);
    }
  }

  // ---------------------------------------------------------------- opening

  public static Dataset open(String location) {
    return open(location, OpenOptions.defaults());
  }

  public static Dataset open(String location, OpenOptions options) {
    ContextAndOwnership c =
        context(location, options.hadoopConf(), options.allocator(), options.session().memory());
    try {
      Snapshot s =
          options.version().isPresent()
              ? loadVersion(c.ctx, options.version().getAsLong())
              : loadLatest(c.ctx).orElseThrow(() -> notFound(c.ctx.paths()));
      return new Dataset(c.ctx, s, c.owns);
    } catch (RuntimeException e) {
      if (c.owns) {
        c.ctx.allocator().close();
      }
      throw e;
    }
  }

  /**
   * Version {@code version} of the dataset at {@code location}, from a process-wide cache shared by
   * every caller in this JVM (the tasks of a Spark executor, repeated queries): the storage, the
   * data files' parsed metadata, the manifest and the index catalog are read once per location,
   * Hadoop file-system settings and version. A version never changes once committed, so entries
   * never go stale. The returned instance is shared: closing it releases nothing (its results are
   * allocated from a cache-owned allocator and must be closed by their users, as always). The cache
   * is the {@link Session#shared() shared session}'s ({@link Session#openCached}).
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

  /** The number of the latest version under {@code ctx}. */
  static long latestVersion(DatasetContext ctx) {
    return VersionLog.latest(ctx.io(), ctx.paths())
        .orElseThrow(() -> notFound(ctx.paths()))
        .version();
  }

  /**
   * A dataset that shares {@code ctx} and does not own its allocator (for {@link DatasetCache}).
   */
  static Dataset shared(DatasetContext ctx, long version) {
    return new Dataset(ctx, loadVersion(ctx, version), false);
  }

  /** A context owning a new allocator and caching in {@code cache}, for {@link DatasetCache}. */
  static DatasetContext newContext(String location, Configuration conf, MemoryCache cache) {
    return context(location, conf, null, cache).ctx;
  }

  /** True when a dataset (at least one committed version) exists at {@code location}. */
  public static boolean exists(String location, Configuration conf) {
    DatasetPaths paths = DatasetPaths.of(location, conf);
    FileIO io = storage(conf);
    return VersionLog.latest(io, paths).isPresent();
  }

  /** The same dataset at another version. The new instance shares storage and allocator. */
  public Dataset checkout(long version) {
    return new Dataset(ctx, loadVersion(ctx, version), false);
  }

  /** The latest version of this dataset, which may be newer than this one. */
  public Dataset checkoutLatest() {
    return new Dataset(ctx, loadLatest(ctx).orElseThrow(() -> notFound(ctx.paths())), false);
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
    return write(
        context(location, open.hadoopConf(), open.allocator(), open.session().memory()),
        location,
        data,
        options);
  }

  private static Dataset write(
      ContextAndOwnership c, String location, ArrowReader data, WriteOptions options) {
    try {
      Schema arrowSchema = data.getVectorSchemaRoot().getSchema();
      Iterator<VectorSchemaRoot> batches = FragmentWriter.batchesOf(data);
      Optional<Snapshot> latest = loadLatest(c.ctx);
      LanceSchema target = targetSchema(c.ctx, latest, arrowSchema, options.mode());
      List<FragmentMetadata> fragments = FragmentWriter.write(c.ctx, target, batches, options);
      Snapshot s = commitWrite(c.ctx, latest, target, fragments, options.mode());
      return new Dataset(c.ctx, s, c.owns);
    } catch (RuntimeException e) {
      if (c.owns) {
        c.ctx.allocator().close();
      }
      throw e;
    } catch (java.io.IOException e) {
      if (c.owns) {
        c.ctx.allocator().close();
      }
      throw new LancelotException(
          "Cannot write to " + location + ": reading the input data failed: " + e.getMessage(), e);
    }
  }

  /**
   * Writes data files for {@code batches} without committing them (one step of a distributed
   * write). The schema must be the dataset's ({@link #lanceSchema()}) for appends, or a new one
   * made by {@link LanceSchema#fromArrow} for creates and overwrites. Nothing becomes visible until
   * {@link #commitFragments} commits the returned fragments.
   */
  public static List<FragmentMetadata> writeFragments(
      String location,
      Configuration conf,
      LanceSchema schema,
      Iterator<VectorSchemaRoot> batches,
      WriteOptions options) {
    ContextAndOwnership c = context(location, conf, null);
    try {
      return FragmentWriter.write(c.ctx, schema, batches, options);
    } finally {
      c.ctx.allocator().close();
    }
  }

  /** See {@link DatasetInternals#newFragmentWriter}. */
  static FragmentWriter newFragmentWriter(
      String location, Configuration conf, LanceSchema schema, WriteOptions options) {
    ContextAndOwnership c = context(location, conf, null);
    return FragmentWriter.open(c.ctx, schema, options, () -> c.ctx.allocator().close());
  }

  /**
   * Commits fragments written by {@link #writeFragments} as one new version. {@code readVersion} is
   * the version the writer planned against (0 when the dataset did not exist).
   */
  public static Dataset commitFragments(
      String location,
      Configuration conf,
      LanceSchema schema,
      List<FragmentMetadata> fragments,
      WriteMode mode,
      long readVersion) {
    ContextAndOwnership c = context(location, conf, null);
    try {
      Optional<Snapshot> base =
          readVersion > 0 ? Optional.of(loadVersion(c.ctx, readVersion)) : loadLatest(c.ctx);
      if (readVersion == 0 && base.isPresent() && mode == WriteMode.CREATE) {
        throw new DatasetAlreadyExistsException(
            "Cannot create dataset "
                + c.ctx.paths().root()
                + ": a dataset was created there concurrently (version "
                + base.get().version()
                + ").");
      }
      Snapshot s = commitWrite(c.ctx, base, schema, fragments, mode);
      return new Dataset(c.ctx, s, c.owns);
    } catch (RuntimeException e) {
      c.ctx.allocator().close();
      throw e;
    }
  }

  /**
   * Deletes what {@link #writeFragments} wrote, after a failed or aborted distributed write. Files
   * the latest version refers to are kept: a commit reported as failed may have been published (its
   * outcome unknown after storage errors), and deleting them would break that version. When the
   * latest version cannot be read, nothing is deleted: files no version refers to are harmless.
   */
  public static void abortFragments(
      String location, Configuration conf, List<FragmentMetadata> fragments) {
    ContextAndOwnership c = context(location, conf, null);
    try {
      java.util.Set<String> referenced = new java.util.HashSet<>();
      try {
        loadLatest(c.ctx)
            .ifPresent(
                s ->
                    s.fragments()
                        .forEach(
                            f -> f.getFilesList().forEach(file -> referenced.add(file.getPath()))));
      } catch (RuntimeException e) {
        LOG.warn(
            "Not deleting the files of an aborted write to {}: cannot read its latest version to check that "
                + "none of them was committed: {}",
            location,
            e.getMessage());
        return;
      }
      for (FragmentMetadata f : fragments) {
        for (String path : f.dataFiles()) {
          if (referenced.contains(path)) {
            LOG.warn(
                "Keeping {} of an aborted write to {}: the latest version refers to it",
                path,
                location);
          } else {
            c.ctx.io().delete(c.ctx.paths().dataFile(path));
          }
        }
      }
    } finally {
      c.ctx.allocator().close();
    }
  }

  /** Appends {@code data} to this dataset and returns the new version. */
  public Dataset append(ArrowReader data) {
    // Through this dataset's storage, so the Hadoop settings it was opened with apply to the
    // append.
    return write(
        new ContextAndOwnership(ctx, false), location(), data, WriteOptions.of(WriteMode.APPEND));
  }

  /**
   * Deletes the rows matching {@code filter} and returns the new version (this one when none
   * match).
   */
  public Dataset delete(String filter) {
    BoundPredicate bound = bindFilter(filter);
    Committer committer = committer();
    Optional<Operation> first = DeletePlanner.plan(this, bound);
    if (first.isEmpty()) {
      return this;
    }
    // Every plan writes deletion files; only the committed plan's files may stay.
    List<Operation> plans = new ArrayList<>(List.of(first.get()));
    Snapshot s;
    try {
      s =
          committer.commit(
              snapshot,
              newer -> {
                Dataset d = new Dataset(ctx, newer, false);
                Operation replanned =
                    DeletePlanner.plan(d, d.bindFilter(filter))
                        .orElse(new Operation.Delete(List.of(), List.of(), filter));
                plans.add(replanned);
                return replanned;
              },
              first.get());
    } catch (RuntimeException e) {
      if (!(e
          instanceof CommitOutcomeUnknownException)) { // else the version may refer to the files
        plans.forEach(p -> deleteDeletionFiles(p, e));
      }
      throw e;
    }
    // Committed: a failure to remove the superseded plans' files must not report the delete as
    // failed.
    plans.subList(0, plans.size() - 1).forEach(p -> deleteDeletionFiles(p, null));
    return new Dataset(ctx, s, false);
  }

  /**
   * Commits row-level changes planned by reading this version (UPDATE, MERGE INTO, DELETE by a
   * condition only Spark evaluates) as one new version, Lance's {@code Update}: the rows in {@code
   * deletes} (fragment id to row offsets) get deletion files, {@code added} (written by {@link
   * #writeFragments} or {@link #newFragmentWriter}) become new fragments. A concurrent commit that
   * touched one of the same fragments fails it with {@link
   * dev.lancelot.engine.CommitConflictException}; concurrent appends and changes to other fragments
   * are rebased over. Returns this version when there is nothing to change.
   */
  public Dataset commitRowChanges(Map<Long, RoaringBitmap> deletes, List<FragmentMetadata> added) {
    Operation.Update op = RowChangesPlanner.plan(this, deletes, added);
    if (op.updatedFragments().isEmpty()
        && op.removedFragmentIds().isEmpty()
        && op.newFragments().isEmpty()) {
      return this;
    }
    Snapshot s;
    try {
      s = committer().commit(snapshot, op);
    } catch (CommitOutcomeUnknownException e) {
      throw e; // the version may exist and refer to the deletion files: keep them
    } catch (RuntimeException e) {
      RowChangesPlanner.deletionFiles(op).forEach(p -> ctx.io().delete(location() + "/" + p));
      throw e;
    }
    return new Dataset(ctx, s, false);
  }

  // ---------------------------------------------------------------- schema evolution

  /**
   * Adds nullable columns that read as null in every row, and returns the new version: a Lance
   * {@code Merge} changing only the schema (no data file is written; Lance 2.x readers return nulls
   * for a field no data file stores). Refuses existing names and NOT NULL columns.
   */
  public Dataset addColumns(List<org.apache.arrow.vector.types.pojo.Field> columns) {
    dev.lancelot.engine.schema.LanceSchema added = ColumnChanges.addedFields(this, columns, false);
    return new Dataset(
        ctx, committer().commit(snapshot, ColumnChanges.merge(this, added, Map.of())), false);
  }

  /**
   * Adds columns whose values {@code backfill} computes from the existing columns {@code inputs},
   * and returns the new version. Each fragment gets one new data file holding only the added
   * columns, for all of its physical rows; the new version (a Lance {@code Merge}) is committed
   * once every file is written. A concurrent commit that changed fragments or the schema makes it
   * fail with {@link dev.lancelot.engine.CommitConflictException} (the files are deleted); index
   * builds are rebased over.
   */
  public Dataset addColumns(
      List<org.apache.arrow.vector.types.pojo.Field> columns,
      List<String> inputs,
      ColumnBackfill backfill) {
    dev.lancelot.engine.schema.LanceSchema added = ColumnChanges.addedFields(this, columns, true);
    Map<Long, dev.lancelot.engine.internal.format.proto.TableProtos.DataFile> files =
        new java.util.LinkedHashMap<>();
    try {
      for (DataFragment f : snapshot.fragments()) {
        files.put(f.getId(), ColumnChanges.writeFragmentColumns(this, f, added, inputs, backfill));
      }
      if (files.isEmpty()) { // no rows: the columns only change the schema
        return addColumns(columns);
      }
      return new Dataset(
          ctx, committer().commit(snapshot, ColumnChanges.merge(this, added, files)), false);
    } catch (CommitOutcomeUnknownException e) {
      throw e; // the version may exist and refer to the files: keep them
    } catch (RuntimeException e) {
      for (var file : files.values()) {
        try {
          ctx.io().delete(ctx.paths().dataFile(file.getPath()));
        } catch (RuntimeException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw e;
    }
  }

  /**
   * The columns a distributed backfill will add to this version, numbered as {@link
   * #commitAddedColumns} expects; checks the names as {@link #addColumns(List, List,
   * ColumnBackfill)} does.
   */
  public dev.lancelot.engine.schema.LanceSchema planAddedColumns(
      List<org.apache.arrow.vector.types.pojo.Field> columns) {
    return ColumnChanges.addedFields(this, columns, true);
  }

  /**
   * One task of a distributed backfill: writes the values of {@code added} (from {@link
   * #planAddedColumns}) for every physical row of fragment {@code fragmentId} of version {@code
   * version}, computed by {@code backfill} (which gets batches without input columns, in row
   * order), into one new data file. Returns it as the fragment with that id and only the new file,
   * for {@link #commitAddedColumns}; {@link #abortFragments} deletes it.
   */
  public static FragmentMetadata writeAddedColumns(
      String location,
      Configuration conf,
      long version,
      dev.lancelot.engine.schema.LanceSchema added,
      long fragmentId,
      ColumnBackfill backfill) {
    try (Dataset d =
        open(location, OpenOptions.defaults().withHadoopConf(conf).withVersion(version))) {
      DataFragment fragment =
          d.snapshot
              .fragment(fragmentId)
              .orElseThrow(
                  () ->
                      new LancelotException(
                          "Cannot add columns to fragment "
                              + fragmentId
                              + " of "
                              + location
                              + " version "
                              + version
                              + ": no such fragment"));
      var file = ColumnChanges.writeFragmentColumns(d, fragment, added, List.of(), backfill);
      return new FragmentMetadata(
          DataFragment.newBuilder()
              .setId(fragmentId)
              .addFiles(file)
              .setPhysicalRows(fragment.getPhysicalRows())
              .build());
    }
  }

  /**
   * Commits the data files of a distributed backfill (one per fragment of this version, from {@link
   * #writeAddedColumns}) as one {@code Merge} version adding {@code added}. On failure the caller
   * deletes the files with {@link #abortFragments}.
   */
  public Dataset commitAddedColumns(
      dev.lancelot.engine.schema.LanceSchema added, List<FragmentMetadata> files) {
    Map<Long, dev.lancelot.engine.internal.format.proto.TableProtos.DataFile> byFragment =
        new java.util.HashMap<>();
    for (FragmentMetadata f : files) {
      DataFragment proto = f.toProto();
      if (proto.getFilesCount() != 1 || byFragment.put(proto.getId(), proto.getFiles(0)) != null) {
        throw new IllegalArgumentException("Expected one data file per fragment, got " + files);
      }
    }
    if (byFragment.isEmpty()) {
      return addColumns(added.toArrow().getFields());
    }
    return new Dataset(
        ctx, committer().commit(snapshot, ColumnChanges.merge(this, added, byFragment)), false);
  }

  /**
   * Drops top-level columns and returns the new version: a Lance {@code Project} changing only the
   * schema (the values stay in the data files, unread, until the fragments are rewritten). Index
   * segments on a dropped column leave the version, as in Lance.
   */
  public Dataset dropColumns(List<String> names) {
    return new Dataset(ctx, committer().commit(snapshot, ColumnChanges.drop(this, names)), false);
  }

  /**
   * Renames a top-level column and returns the new version (a Lance {@code Project}; the field
   * keeps its id, so data files and index segments stay valid).
   */
  public Dataset renameColumn(String name, String newName) {
    return new Dataset(
        ctx, committer().commit(snapshot, ColumnChanges.rename(this, name, newName)), false);
  }

  /**
   * Sets (value present) or removes (value empty) entries of the table config (Lance's {@code
   * UpdateConfig}) and returns the new version.
   */
  public Dataset updateConfig(Map<String, Optional<String>> entries) {
    if (entries.isEmpty()) {
      return this;
    }
    return new Dataset(
        ctx, committer().commit(snapshot, new Operation.UpdateConfig(entries)), false);
  }

  /** The table config of this version (Lance's {@code Manifest.config}). */
  public Map<String, String> config() {
    return snapshot.manifest().getConfigMap();
  }

  /**
   * Removes the deletion files an uncommitted plan wrote; failures go to {@code failure}, or are
   * logged.
   */
  private void deleteDeletionFiles(Operation op, RuntimeException failure) {
    if (op instanceof Operation.Delete d) {
      for (DataFragment f : d.updatedFragments()) {
        if (f.hasDeletionFile()) {
          String file =
              location() + "/" + DeletionFiles.relativePath(f.getId(), f.getDeletionFile());
          try {
            ctx.io().delete(file);
          } catch (RuntimeException e) {
            if (failure != null) {
              failure.addSuppressed(e);
            } else {
              LOG.warn(
                  "Could not remove {}, written by a plan that was not committed (harmless: no version refers "
                      + "to it): {}",
                  file,
                  e.getMessage());
            }
          }
        }
      }
    }
  }

  /**
   * Commits index segments written under {@code _indices/<uuid>/} (and removes replaced ones) as a
   * new version. Concurrent appends and deletes are compatible; a concurrent commit of an index
   * with the same name is a conflict.
   */
  Dataset commitIndexes(List<IndexMetadata> added, List<IndexMetadata> removed) {
    Snapshot s = committer().commit(snapshot, new Operation.CreateIndex(added, removed));
    return new Dataset(ctx, s, false);
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
   * Removes old versions of this dataset and the files no kept version references (see {@link
   * CleanupOptions}). The latest version and tagged versions are always kept. Opening a removed
   * version afterwards fails with an error naming it.
   */
  public CleanupResult cleanup(CleanupOptions options) {
    CleanupResult r =
        dev.lancelot.engine.internal.maintenance.Cleaner.cleanup(ctx.io(), ctx.paths(), options);
    if (!r.versionsRemoved().isEmpty()) {
      // A cached removed version would be opened from memory and then miss its files.
      evictCached(location());
      DatasetCache.evict(ctx.cache(), location()); // and the session this dataset was opened in
    }
    return r;
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

  // ---------------------------------------------------------------- metadata

  public String location() {
    return ctx.paths().root();
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
    return snapshot.fragments().stream().map(Snapshot::info).toList();
  }

  /** Every committed version, oldest first. */
  public List<VersionInfo> versions() {
    List<VersionInfo> out = new ArrayList<>();
    for (VersionLog.Entry e : VersionLog.list(ctx.io(), ctx.paths())) {
      Snapshot s = readSnapshot(ctx, e);
      String op =
          s.file().transaction().map(t -> OperationKind.of(t).displayName()).orElse("unknown");
      out.add(new VersionInfo(s.version(), s.timestamp(), s.countRows(), s.fragments().size(), op));
    }
    return out;
  }

  /** The Lance file format version of this dataset's data files, e.g. "2.1". */
  public String dataStorageVersion() {
    return snapshot.manifest().getDataFormat().getVersion();
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
   * Offsets of the deleted rows of fragment {@code fragmentId} of this version (empty when none are
   * deleted).
   *
   * @throws InvalidInputException if this version has no such fragment
   */
  public RoaringBitmap deletedRows(long fragmentId) {
    DataFragment fragment =
        snapshot
            .fragment(fragmentId)
            .orElseThrow(
                () ->
                    new InvalidInputException(
                        "Cannot read deleted rows of fragment "
                            + fragmentId
                            + " of "
                            + location()
                            + " version "
                            + version()
                            + ": no such fragment; the version's fragments are "
                            + snapshot.fragments().stream().map(DataFragment::getId).toList()));
    return deletedRows(fragment);
  }

  /** Deleted row offsets of a fragment (cached). */
  RoaringBitmap deletedRows(DataFragment fragment) {
    if (!fragment.hasDeletionFile()) {
      return new RoaringBitmap();
    }
    return deletions.computeIfAbsent(
        fragment.getId(),
        id -> {
          try {
            return DeletionFiles.read(
                ctx.io(), location(), id, fragment.getDeletionFile(), fragment.getPhysicalRows());
          } catch (StorageException e) {
            throw new StorageException(
                e.getMessage()
                    + " (the deletion file of fragment "
                    + id
                    + " as listed in "
                    + snapshot.entry().location()
                    + ")",
                e);
          } catch (LancelotException e) {
            throw new LancelotException(
                e.getMessage()
                    + " (the deletion file of fragment "
                    + id
                    + " as listed in "
                    + snapshot.entry().location()
                    + ")",
                e);
          }
        });
  }

  FragmentReader openFragment(DataFragment fragment) {
    return new FragmentReader(ctx, fragment, snapshot.entry().location());
  }

  CloseableIterator<VectorSchemaRoot> executeScan(ScanTask task, ScanSpec spec) {
    DataFragment fragment =
        snapshot
            .fragment(task.fragmentId())
            .orElseThrow(
                () ->
                    new InvalidInputException(
                        "Cannot scan fragment "
                            + task.fragmentId()
                            + " of "
                            + location()
                            + " version "
                            + version()
                            + ": no such fragment"));
    if (task.endRow() > fragment.getPhysicalRows()) {
      throw new InvalidInputException(
          "Cannot scan rows ["
              + task.startRow()
              + ", "
              + task.endRow()
              + ") of fragment "
              + task.fragmentId()
              + " of "
              + location()
              + ": it has "
              + fragment.getPhysicalRows()
              + " rows");
    }
    List<LanceField> filterFields = new ArrayList<>();
    if (spec.filter() != null) {
      for (String c : spec.filter().referencedColumns()) {
        filterFields.add(field(c));
      }
    }
    FragmentReader reader = openFragment(fragment);
    FragmentScan scan =
        new FragmentScan(reader, task, spec, deletedRows(fragment), filterFields, ctx.allocator());
    return new CloseableIterator<>() {
      @Override
      public boolean hasNext() {
        return scan.hasNext();
      }

      @Override
      public VectorSchemaRoot next() {
        return scan.next();
      }

      @Override
      public void close() {
        scan.close();
        reader.close();
      }
    };
  }

  private Committer committer() {
    return new Committer(ctx.io(), ctx.paths(), snapshot.entry().naming());
  }

  private record ContextAndOwnership(DatasetContext ctx, boolean owns) {}

  private static ContextAndOwnership context(
      String location, Configuration conf, BufferAllocator allocator) {
    return context(location, conf, allocator, Session.shared().memory());
  }

  private static ContextAndOwnership context(
      String location, Configuration conf, BufferAllocator allocator, MemoryCache cache) {
    DatasetPaths paths = DatasetPaths.of(location, conf);
    FileIO io = storage(conf);
    boolean owns = allocator == null;
    BufferAllocator a = owns ? new RootAllocator() : allocator;
    return new ContextAndOwnership(new DatasetContext(io, paths, a, cache), owns);
  }

  /**
   * The storage of a dataset: the Hadoop file systems, with transient errors retried as {@code
   * conf} says.
   */
  private static FileIO storage(Configuration conf) {
    Configuration c = conf == null ? HadoopFileIO.defaultConf() : conf;
    return new RetryingFileIO(new HadoopFileIO(c), RetryPolicy.from(c));
  }

  private static Optional<Snapshot> loadLatest(DatasetContext ctx) {
    return VersionLog.latest(ctx.io(), ctx.paths()).map(e -> readSnapshot(ctx, e));
  }

  private static Snapshot loadVersion(DatasetContext ctx, long version) {
    Optional<VersionLog.Entry> entry = VersionLog.find(ctx.io(), ctx.paths(), version);
    if (entry.isEmpty()) {
      List<VersionLog.Entry> all = VersionLog.list(ctx.io(), ctx.paths());
      if (all.isEmpty()) {
        throw notFound(ctx.paths());
      }
      String why =
          version < all.get(0).version()
              ? ": no such version (versions before "
                  + all.get(0).version()
                  + " were removed by cleanup or never existed)"
              : ": no such version";
      throw new DatasetNotFoundException(
          "Cannot open version "
              + version
              + " of dataset "
              + ctx.paths().root()
              + why
              + ". Available versions: "
              + availableVersions(all)
              + ".");
    }
    return readSnapshot(ctx, entry.get());
  }

  /** "1 to 5", or the list when cleanup left gaps. */
  private static String availableVersions(List<VersionLog.Entry> all) {
    long first = all.get(0).version();
    long last = all.get(all.size() - 1).version();
    if (last - first + 1 == all.size()) {
      return first + " to " + last;
    }
    return all.stream()
        .map(e -> Long.toString(e.version()))
        .collect(java.util.stream.Collectors.joining(", "));
  }

  private static Snapshot readSnapshot(DatasetContext ctx, VersionLog.Entry e) {
    try (InputFile in =
        e.size() >= 0
            ? ctx.io().newInputFile(e.location(), e.size())
            : ctx.io().newInputFile(e.location())) {
      return new Snapshot(ctx.paths(), e, ManifestFile.read(in));
    }
  }

  private static DatasetNotFoundException notFound(DatasetPaths paths) {
    return new DatasetNotFoundException(
        "Cannot open dataset "
            + paths.root()
            + ": no Lance dataset there (no "
            + "manifest in "
            + paths.versionsDir()
            + "). Check the path, or create the dataset by writing to it.");
  }

  private static LanceSchema targetSchema(
      DatasetContext ctx, Optional<Snapshot> latest, Schema arrow, WriteMode mode) {
    if (latest.isPresent() && mode == WriteMode.CREATE) {
      throw new DatasetAlreadyExistsException(
          "Cannot create dataset "
              + ctx.paths().root()
              + ": it already exists "
              + "(version "
              + latest.get().version()
              + "). Use mode APPEND or OVERWRITE.");
    }
    if (latest.isPresent() && mode == WriteMode.APPEND) {
      Snapshot s = latest.get();
      FeatureFlags.checkWritable(ctx.paths().root(), s.manifest().getWriterFeatureFlags());
      LanceSchema existing =
          SchemaProtos.fromProtos(
              s.manifest().getFieldsList(), s.manifest().getSchemaMetadataMap());
      return SchemaCompatibility.forAppend(ctx.paths().root(), existing, arrow);
    }
    return LanceSchema.fromArrow(arrow);
  }

  private static Snapshot commitWrite(
      DatasetContext ctx,
      Optional<Snapshot> latest,
      LanceSchema schema,
      List<FragmentMetadata> fragments,
      WriteMode mode) {
    List<DataFragment> protos = fragments.stream().map(FragmentMetadata::toProto).toList();
    Snapshot base = latest.orElse(null);
    ManifestNaming naming = base == null ? ManifestNaming.V2 : base.entry().naming();
    Committer committer = new Committer(ctx.io(), ctx.paths(), naming);
    Operation op =
        base != null && mode == WriteMode.APPEND
            ? new Operation.Append(protos)
            : new Operation.Overwrite(
                SchemaProtos.toProtos(schema), SchemaProtos.metadataProto(schema), protos, null);
    return committer.commit(base, op);
  }
}
