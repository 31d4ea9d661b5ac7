package dev.lancelot.engine;

import dev.lancelot.engine.internal.format.DeletionFiles;
import dev.lancelot.engine.internal.format.FeatureFlags;
import dev.lancelot.engine.internal.format.ManifestFile;
import dev.lancelot.engine.internal.format.SchemaProtos;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.table.DatasetContext;
import dev.lancelot.engine.internal.table.DatasetPaths;
import dev.lancelot.engine.internal.table.OperationKind;
import dev.lancelot.engine.internal.table.Refs;
import dev.lancelot.engine.internal.table.Snapshot;
import dev.lancelot.engine.internal.table.VersionLog;
import dev.lancelot.engine.internal.util.MemoryCache;
import dev.lancelot.engine.io.FileIO;
import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.io.RetryPolicy;
import dev.lancelot.engine.io.RetryingFileIO;
import dev.lancelot.engine.io.StorageException;
import dev.lancelot.engine.schema.LanceSchema;
import dev.lancelot.engine.schema.SchemaException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.hadoop.conf.Configuration;
import org.roaringbitmap.RoaringBitmap;

/**
 * Where a {@link Dataset} comes from: the storage and paths of a location, and its versions read
 * from the version log. Package-private; {@link Dataset}, {@link DatasetWrites} and {@link
 * DatasetCache} use it.
 */
final class DatasetStorage {
  private DatasetStorage() {}

  /** A context and whether the dataset owns its allocator (it created it). */
  record ContextAndOwnership(DatasetContext ctx, boolean owns) {}

  /** A context caching in the shared session. */
  static ContextAndOwnership context(
      String location, Configuration conf, BufferAllocator allocator) {
    return context(location, conf, allocator, Session.shared().memory());
  }

  /** A context caching in {@code cache} (a session's). */
  static ContextAndOwnership context(
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
  static FileIO storage(Configuration conf) {
    Configuration c = conf == null ? HadoopFileIO.defaultConf() : conf;
    return new RetryingFileIO(new HadoopFileIO(c), RetryPolicy.from(c));
  }

  static Optional<Snapshot> loadLatest(DatasetContext ctx) {
    return VersionLog.latest(ctx.io(), ctx.paths()).map(e -> readSnapshot(ctx, e));
  }

  static Snapshot loadVersion(DatasetContext ctx, long version) {
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
  static String availableVersions(List<VersionLog.Entry> all) {
    long first = all.get(0).version();
    long last = all.get(all.size() - 1).version();
    if (last - first + 1 == all.size()) {
      return first + " to " + last;
    }
    return all.stream()
        .map(e -> Long.toString(e.version()))
        .collect(java.util.stream.Collectors.joining(", "));
  }

  static Snapshot readSnapshot(DatasetContext ctx, VersionLog.Entry e) {
    try (InputFile in =
        e.size() >= 0
            ? ctx.io().newInputFile(e.location(), e.size())
            : ctx.io().newInputFile(e.location())) {
      return new Snapshot(ctx.paths(), e, ManifestFile.read(in));
    }
  }

  static DatasetNotFoundException notFound(DatasetPaths paths) {
    return new DatasetNotFoundException(
        "Cannot open dataset "
            + paths.root()
            + ": no Lance dataset there (no "
            + "manifest in "
            + paths.versionsDir()
            + "). Check the path, or create the dataset by writing to it.");
  }

  /** The number of the latest version under {@code ctx}. */
  static long latestVersion(DatasetContext ctx) {
    return VersionLog.latest(ctx.io(), ctx.paths())
        .orElseThrow(() -> notFound(ctx.paths()))
        .version();
  }

  /** {@link Dataset#open(String, OpenOptions)}. */
  static Dataset open(String location, OpenOptions options) {
    String at = location;
    OptionalLong version = options.version();
    if (options.tag().isPresent() || options.branch().isPresent()) {
      FileIO io = storage(options.hadoopConf());
      Refs refs = new Refs(io, DatasetPaths.of(location, options.hadoopConf()).root());
      if (!VersionLog.latest(io, DatasetPaths.of(refs.root())).isPresent()) {
        throw notFound(DatasetPaths.of(refs.root()));
      }
      if (options.tag().isPresent()) {
        Refs.TagFile tag = refs.tag(options.tag().get());
        at = tag.branch().map(b -> Refs.branchLocation(refs.root(), b)).orElse(refs.root());
        version = OptionalLong.of(tag.version());
      } else {
        refs.branch(options.branch().get()); // exists, else an error naming the branches
        at = Refs.branchLocation(refs.root(), options.branch().get());
      }
    }
    ContextAndOwnership c =
        context(at, options.hadoopConf(), options.allocator(), options.session().memory());
    try {
      Snapshot s =
          version.isPresent()
              ? loadVersion(c.ctx(), version.getAsLong())
              : loadLatest(c.ctx()).orElseThrow(() -> notFound(c.ctx().paths()));
      return new Dataset(c.ctx(), s, c.owns());
    } catch (RuntimeException e) {
      if (c.owns()) {
        c.ctx().allocator().close();
      }
      throw e;
    }
  }

  /** Every committed version of the dataset of {@code ctx}, oldest first. */
  static List<VersionInfo> versions(DatasetContext ctx) {
    List<VersionInfo> out = new ArrayList<>();
    for (VersionLog.Entry e : VersionLog.list(ctx.io(), ctx.paths())) {
      Snapshot s = readSnapshot(ctx, e);
      String op =
          s.file().transaction().map(t -> OperationKind.of(t).displayName()).orElse("unknown");
      out.add(new VersionInfo(s.version(), s.timestamp(), s.countRows(), s.fragments().size(), op));
    }
    return out;
  }

  /**
   * The kind of operation that committed {@code s}, from the transaction its manifest holds or,
   * failing that, the transaction file it names; {@code UNKNOWN} when it records neither.
   */
  static OperationKind operationOf(DatasetContext ctx, Snapshot s) {
    Optional<dev.lancelot.engine.internal.format.proto.TransactionProtos.Transaction> inline =
        s.file().transaction();
    if (inline.isPresent()) {
      return OperationKind.of(inline.get());
    }
    String name = s.manifest().getTransactionFile();
    if (name.isEmpty()) {
      return OperationKind.UNKNOWN;
    }
    String location =
        ctx.paths().resolveInside(DatasetPaths.TRANSACTIONS, name, "transaction file");
    try (InputFile in = ctx.io().newInputFile(location)) {
      java.nio.ByteBuffer buf = in.read(0, Math.toIntExact(in.length()));
      byte[] bytes = new byte[buf.remaining()];
      buf.get(bytes);
      return OperationKind.of(ManifestFile.parseTransaction(location, bytes));
    }
  }

  /** The branches of the dataset whose main branch is at {@code root}. */
  static List<Branch> branches(FileIO io, String root) {
    List<Branch> out = new ArrayList<>();
    for (Refs.BranchFile b : new Refs(io, root).branches()) {
      out.add(
          new Branch(
              b.name(),
              b.parentBranch(),
              b.parentVersion(),
              Instant.ofEpochSecond(b.createdAtSeconds()),
              b.metadata()));
    }
    return out;
  }

  /**
   * Reads the deleted row offsets of {@code fragment} (which has a deletion file) of {@code
   * snapshot}; errors name the manifest that lists the file.
   */
  static RoaringBitmap readDeletions(DatasetContext ctx, Snapshot snapshot, DataFragment fragment) {
    long id = fragment.getId();
    try {
      return DeletionFiles.readAt(
          ctx.io(),
          snapshot.bases().deletionFile(id, fragment.getDeletionFile()),
          fragment.getDeletionFile(),
          fragment.getPhysicalRows());
    } catch (StorageException e) {
      throw new StorageException(e.getMessage() + deletionFileOf(id, snapshot), e);
    } catch (LancelotException e) {
      throw new LancelotException(e.getMessage() + deletionFileOf(id, snapshot), e);
    }
  }

  private static String deletionFileOf(long fragmentId, Snapshot snapshot) {
    return " (the deletion file of fragment "
        + fragmentId
        + " as listed in "
        + snapshot.entry().location()
        + ")";
  }

  /**
   * {@link Dataset#cleanup}: of the branch the dataset is on (main or a named branch); cached
   * versions it removed are forgotten.
   */
  static CleanupResult cleanup(Dataset dataset, CleanupOptions options) {
    DatasetContext ctx = dataset.context();
    CleanupResult r =
        dev.lancelot.engine.internal.maintenance.Cleaner.cleanup(
            ctx.io(), ctx.paths(), dataset.rootLocation(), dataset.branch(), options);
    if (!r.versionsRemoved().isEmpty()) {
      // A cached removed version would be opened from memory and then miss its files.
      Dataset.evictCached(dataset.location());
      DatasetCache.evict(ctx.cache(), dataset.location()); // and the session it was opened in
    }
    return r;
  }

  /**
   * Fragment {@code fragmentId} of {@code dataset}'s version, or an error saying what could not be
   * done.
   */
  static DataFragment fragment(Dataset dataset, long fragmentId, String action) {
    return dataset
        .snapshot()
        .fragment(fragmentId)
        .orElseThrow(
            () ->
                new InvalidInputException(
                    "Cannot "
                        + action
                        + " fragment "
                        + fragmentId
                        + " of "
                        + dataset.location()
                        + " version "
                        + dataset.version()
                        + ": no such fragment; the version's fragments are "
                        + dataset.snapshot().fragments().stream()
                            .map(DataFragment::getId)
                            .toList()));
  }

  /** True when a dataset (at least one committed version) exists at {@code location}. */
  static boolean exists(String location, Configuration conf) {
    return VersionLog.latest(storage(conf), DatasetPaths.of(location, conf)).isPresent();
  }

  /**
   * The schema of {@code snapshot}, checked readable: every feature flag it carries is one lancelot
   * reads, and every logical type of its fields converts to Arrow.
   */
  static LanceSchema readableSchema(DatasetContext ctx, Snapshot snapshot) {
    FeatureFlags.checkReadable(
        ctx.paths().root(),
        snapshot.manifest().getReaderFeatureFlags(),
        snapshot.manifest().getWriterFeatureFlags());
    try {
      LanceSchema schema =
          SchemaProtos.fromProtos(
              snapshot.manifest().getFieldsList(), snapshot.manifest().getSchemaMetadataMap());
      schema.toArrow(); // every logical type is readable
      return schema;
    } catch (SchemaException e) {
      throw new SchemaException(
          e.getMessage() + " (the schema of " + snapshot.entry().location() + ")", e);
    }
  }
}
