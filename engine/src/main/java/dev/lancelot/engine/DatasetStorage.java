package dev.lancelot.engine;

import dev.lancelot.engine.internal.format.ManifestFile;
import dev.lancelot.engine.internal.table.DatasetContext;
import dev.lancelot.engine.internal.table.DatasetPaths;
import dev.lancelot.engine.internal.table.Snapshot;
import dev.lancelot.engine.internal.table.VersionLog;
import dev.lancelot.engine.internal.util.MemoryCache;
import dev.lancelot.engine.io.FileIO;
import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.io.RetryPolicy;
import dev.lancelot.engine.io.RetryingFileIO;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.hadoop.conf.Configuration;

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
}
