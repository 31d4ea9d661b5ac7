package dev.lancelot.engine;

import dev.lancelot.engine.internal.util.MemoryCache;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import org.apache.hadoop.conf.Configuration;

/**
 * What datasets opened in it share: one cache of opened versions ({@link #openCached}), of the
 * parsed metadata of data files, and of vector and scalar index segments, under one byte budget
 * ({@link SessionOptions#maxBytes()}). When the cache holds more than the budget, the least
 * recently used entries go first, whatever their kind: a search that loads many index partitions
 * may evict opened versions, and the other way round. Sizes are estimates of the heap each entry
 * holds. Statistics are kept per {@link CacheKind}.
 *
 * <p>{@link Dataset#open(String, OpenOptions)} uses the session of its options ({@link
 * OpenOptions#withSession}), by default the process-wide {@link #shared()} one, as do {@link
 * Dataset#openCached} and {@link Dataset#openLatestCached}. Datasets of different sessions share no
 * cached entry, so a session is also a way to keep one workload's caches apart from another's.
 * Index files and committed versions never change, so those entries never go stale. The metadata of
 * data files is kept per opened dataset (its checkouts and the versions {@link #openCached} opens
 * at one location share it) and not between two {@code Dataset.open} calls, which read the files
 * afresh as before sessions existed; it still counts against the session's one budget.
 *
 * <p>Entries are dropped, never closed: a dataset or index handed out stays usable after it left
 * the cache. Memory maps of local files ({@code lancelot.io.mmap}) are not in the session: they are
 * address space and the operating system's page cache, not heap, shared by every reader in the JVM
 * with their own bound.
 *
 * <p>Thread-safe.
 */
public final class Session {
  private static volatile Session shared;

  private final MemoryCache cache;
  private final DatasetCache datasets;
  private volatile SessionOptions options;

  /** A new session, with nothing cached. */
  public Session(SessionOptions options) {
    this.options = Objects.requireNonNull(options, "options");
    this.cache = new MemoryCache(options.maxBytes());
    this.datasets = new DatasetCache(cache);
  }

  /**
   * The process-wide session, created on first use with {@link SessionOptions#defaults()} (the
   * system property {@value SessionOptions#MAX_BYTES_PROPERTY}, else 1 GiB or a quarter of the
   * heap).
   *
   * @throws InvalidInputException if that property is set to something other than a byte count
   */
  public static Session shared() {
    Session s = shared;
    if (s == null) {
      synchronized (Session.class) {
        s = shared;
        if (s == null) {
          s = new Session(SessionOptions.defaults());
          shared = s;
        }
      }
    }
    return s;
  }

  /** The session's settings now (the budget as last set). */
  public SessionOptions options() {
    return options;
  }

  /** The byte budget of everything the session caches. */
  public long maxBytes() {
    return cache.maxBytes();
  }

  /**
   * Changes the byte budget (e.g. from a Spark conf on each executor), evicting least recently used
   * entries until the cache fits; 0 keeps nothing between uses.
   *
   * @throws InvalidInputException if {@code bytes} is negative
   */
  public synchronized void setMaxBytes(long bytes) {
    SessionOptions changed = options.withMaxBytes(bytes);
    cache.setMaxBytes(bytes);
    options = changed;
  }

  /** Estimated heap bytes of everything cached now. */
  public long usedBytes() {
    return cache.usedBytes();
  }

  /** Lookups, loads, evictions and holdings of one kind of entry. */
  public CacheStats stats(CacheKind kind) {
    return cache.stats(kind);
  }

  /** The statistics of every kind. */
  public Map<CacheKind, CacheStats> stats() {
    EnumMap<CacheKind, CacheStats> all = new EnumMap<>(CacheKind.class);
    for (CacheKind k : CacheKind.values()) {
      all.put(k, cache.stats(k));
    }
    return Collections.unmodifiableMap(all);
  }

  /**
   * Version {@code version} of the dataset at {@code location}, from this session: the storage, the
   * data files' parsed metadata, the manifest and the index catalog are read once per location,
   * Hadoop file-system settings ({@code fs.*}) and version, until the entry is evicted. A version
   * never changes once committed, so entries never go stale. The returned instance is shared:
   * closing it releases nothing (its results are allocated from an allocator of the session's and
   * must be closed by their users, as always).
   */
  public Dataset openCached(String location, long version, Configuration conf) {
    return datasets.open(location, version, conf);
  }

  /**
   * The latest version of the dataset at {@code location} through the same cache as {@link
   * #openCached}: each call lists the version directory (so a new commit is seen at once); a
   * version already opened is not read again.
   */
  public Dataset openLatestCached(String location, Configuration conf) {
    return datasets.openLatest(location, conf);
  }

  /**
   * Forgets every cached version of the dataset at {@code location}, for when the dataset was
   * removed (a dataset created there later starts again at version 1). Datasets already handed out
   * stay usable.
   */
  public void evict(String location) {
    datasets.evict(location);
  }

  /** Drops everything cached (statistics of past lookups are kept). */
  public void clear() {
    cache.clear();
  }

  /**
   * Drops every entry of one kind, e.g. {@link CacheKind#SCALAR_INDEX} after index files were
   * replaced out of band (restored from a backup): index files never change once written.
   */
  public void clear(CacheKind kind) {
    cache.clear(kind);
  }

  /** The cache datasets opened in this session keep their entries in. */
  MemoryCache memory() {
    return cache;
  }

  @Override
  public String toString() {
    return "Session[" + cache.usedBytes() + " of " + cache.maxBytes() + " bytes]";
  }
}
