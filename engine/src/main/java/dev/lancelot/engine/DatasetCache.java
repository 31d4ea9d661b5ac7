package dev.lancelot.engine;

import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.format.ManifestFile;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexMetadata;
import dev.lancelot.engine.internal.table.DatasetContext;
import dev.lancelot.engine.internal.util.MemoryCache;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;

/**
 * A session's opened datasets, behind {@link Session#openCached} and {@link Dataset#openCached}:
 * one storage context per dataset location and file-system settings (its data files' parsed
 * metadata is kept per context), and one opened {@link Dataset} per version of it. Both live in the
 * session's cache ({@link CacheKind#DATASET_CONTEXTS}, {@link CacheKind#DATASET_VERSIONS}), weighed
 * by estimate and dropped least recently used first with every other kind. Thread-safe.
 */
final class DatasetCache {
  /**
   * Heap of one context: its file systems, retry policy and paths (the Hadoop configuration is the
   * caller's, and the data files' metadata is weighed on its own).
   */
  static final long CONTEXT_BYTES = 4096;

  /** Heap of an opened version besides its manifest messages: schema, views, small maps. */
  static final long VERSION_OVERHEAD_BYTES = 4096;

  /** Parsed protobuf messages take a few times their serialized size on the heap. */
  static final int PARSED_MESSAGE_FACTOR = 3;

  /** Location and the file-system settings; never printed (the settings may carry credentials). */
  private record ContextKey(String location, String fileSystemSettings) {
    @Override
    public String toString() {
      return location;
    }
  }

  private record VersionKey(ContextKey context, long version) {}

  private static final MemoryCache.Kind<ContextKey, DatasetContext> CONTEXTS =
      new MemoryCache.Kind<>(CacheKind.DATASET_CONTEXTS, c -> CONTEXT_BYTES);

  private static final MemoryCache.Kind<VersionKey, Dataset> VERSIONS =
      new MemoryCache.Kind<>(CacheKind.DATASET_VERSIONS, DatasetCache::estimatedBytes);

  private final MemoryCache cache;

  DatasetCache(MemoryCache cache) {
    this.cache = cache;
  }

  Dataset open(String location, long version, Configuration conf) {
    if (version <= 0) {
      throw new IllegalArgumentException(
          "A cached dataset needs an explicit version, got " + version);
    }
    ContextKey context = new ContextKey(location, fileSystemSettings(conf));
    return cache.get(
        VERSIONS, new VersionKey(context, version), k -> shared(context(context, conf), version));
  }

  /** The latest version: one listing of the version directory, the rest from the cache. */
  Dataset openLatest(String location, Configuration conf) {
    ContextKey context = new ContextKey(location, fileSystemSettings(conf));
    DatasetContext ctx = context(context, conf);
    long version = DatasetStorage.latestVersion(ctx);
    return cache.get(VERSIONS, new VersionKey(context, version), k -> shared(ctx, version));
  }

  /** Drops the contexts and versions of {@code location} (under any file-system settings). */
  void evict(String location) {
    evict(cache, location);
  }

  /** Drops the contexts and versions of {@code location} that {@code cache} holds. */
  static void evict(MemoryCache cache, String location) {
    cache.invalidateIf(VERSIONS, k -> k.context().location().equals(location));
    cache.invalidateIf(CONTEXTS, k -> k.location().equals(location));
  }

  private DatasetContext context(ContextKey key, Configuration conf) {
    return cache.get(
        CONTEXTS, key, k -> DatasetStorage.context(k.location(), conf, null, cache).ctx());
  }

  /** The manifest, index and transaction messages of a version, as parsed objects, and the rest. */
  static long estimatedBytes(Dataset dataset) {
    ManifestFile file = DatasetInternals.snapshot(dataset).file();
    long serialized = file.manifest().getSerializedSize();
    for (IndexMetadata index : file.indices()) {
      serialized += index.getSerializedSize();
    }
    if (file.transaction().isPresent()) {
      serialized += file.transaction().get().getSerializedSize();
    }
    return VERSION_OVERHEAD_BYTES + PARSED_MESSAGE_FACTOR * serialized;
  }

  /**
   * The settings that decide how files are reached ({@code fs.*}: schemes, endpoints, credentials),
   * so that callers with other settings get their own context.
   */
  private static String fileSystemSettings(Configuration conf) {
    if (conf == null) {
      return "";
    }
    TreeMap<String, String> fs = new TreeMap<>();
    for (Map.Entry<String, String> e : conf) {
      if (e.getKey().startsWith("fs.")) {
        fs.put(e.getKey(), e.getValue());
      }
    }
    return fs.toString(); // held in memory only, never logged: it may carry credentials
  }

  /** A version that shares {@code ctx} and does not own its allocator. */
  private static Dataset shared(DatasetContext ctx, long version) {
    return new Dataset(ctx, DatasetStorage.loadVersion(ctx, version), false);
  }
}
