package dev.lancelot.engine;

import dev.lancelot.engine.internal.table.DatasetContext;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;

/**
 * The process-wide cache behind {@link Dataset#openCached}: one storage context per dataset
 * location and file-system settings (it keeps the data files' parsed metadata), and one opened
 * {@link Dataset} per version of it. Both are bounded by count, least recently used first out.
 * Thread-safe.
 */
final class DatasetCache {
  static final DatasetCache SHARED = new DatasetCache(16, 64);

  private final Map<String, DatasetContext> contexts;
  private final Map<String, Dataset> versions;

  DatasetCache(int maxContexts, int maxVersions) {
    this.contexts = lru(maxContexts);
    this.versions = lru(maxVersions);
  }

  private static <V> Map<String, V> lru(int max) {
    return new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
        return size() > max;
      }
    };
  }

  Dataset open(String location, long version, Configuration conf) {
    if (version <= 0) {
      throw new IllegalArgumentException(
          "A cached dataset needs an explicit version, got " + version);
    }
    String contextKey = location + "\u0000" + fileSystemSettings(conf);
    String versionKey = contextKey + "\u0000" + version;
    synchronized (this) {
      Dataset d = versions.get(versionKey);
      if (d != null) {
        return d;
      }
    }
    return open(context(contextKey, location, conf), versionKey, version);
  }

  /** The latest version: one listing of the version directory, the rest from the cache. */
  Dataset openLatest(String location, Configuration conf) {
    String contextKey = location + "\u0000" + fileSystemSettings(conf);
    DatasetContext ctx = context(contextKey, location, conf);
    long version = DatasetStorage.latestVersion(ctx);
    String versionKey = contextKey + "\u0000" + version;
    synchronized (this) {
      Dataset d = versions.get(versionKey);
      if (d != null) {
        return d;
      }
    }
    return open(ctx, versionKey, version);
  }

  /** Drops the contexts and versions of {@code location} (under any file-system settings). */
  synchronized void evict(String location) {
    String prefix = location + "\u0000";
    contexts.keySet().removeIf(k -> k.startsWith(prefix));
    versions.keySet().removeIf(k -> k.startsWith(prefix));
  }

  private DatasetContext context(String contextKey, String location, Configuration conf) {
    DatasetContext ctx;
    synchronized (this) {
      ctx = contexts.get(contextKey);
    }
    if (ctx == null) {
      DatasetContext fresh = Dataset.newContext(location, conf);
      synchronized (this) {
        ctx = contexts.computeIfAbsent(contextKey, k -> fresh);
      }
    }
    return ctx;
  }

  private Dataset open(DatasetContext ctx, String versionKey, long version) {
    Dataset fresh = Dataset.shared(ctx, version);
    synchronized (this) {
      return versions.computeIfAbsent(versionKey, k -> fresh);
    }
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
}
