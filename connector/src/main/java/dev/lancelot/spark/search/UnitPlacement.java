package dev.lancelot.spark.search;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.distributed.SearchTask;
import dev.lancelot.spark.read.BlockHosts;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a search unit should run, on the driver: first the executor that last searched it (an index
 * segment, or a group of fragments, is then searched again where it is already cached, so each is
 * cached once in the cluster rather than on every executor), then the hosts holding the blocks of
 * the files it reads (on HDFS: an index segment's index files, a flat unit's data files), so that a
 * unit not cached anywhere yet, or whose executor is gone or busy, runs where its bytes are.
 *
 * <p>The executor is Spark's executor-cache location ({@code executor_<host>_<id>}), which Spark
 * ranks above the hosts ({@code PROCESS_LOCAL} before {@code NODE_LOCAL}); Spark still runs the
 * task elsewhere when none of them is free within {@code spark.locality.wait}. Stores without block
 * locations (object stores, local paths) contribute no hosts. Both maps are bounded, least recently
 * used first out; the block hosts of a unit's files are asked once (files never change).
 */
final class UnitPlacement {
  private static final Logger LOG = LoggerFactory.getLogger(UnitPlacement.class);
  private static final int MAX = 4096;
  private static final Map<String, String> LAST = lru();
  private static final Map<String, List<String>> HOSTS = lru();

  private UnitPlacement() {}

  private static <V> Map<String, V> lru() {
    return new LinkedHashMap<>(64, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
        return size() > MAX;
      }
    };
  }

  /**
   * Spark's preferred locations of {@code task}: the executor that last searched the same piece (if
   * any), then the hosts holding most of its files' bytes.
   */
  static List<String> preferred(SearchTask task, Configuration conf) {
    List<String> out = new ArrayList<>(1 + 3);
    String executor = lastExecutor(task);
    if (executor != null) {
      out.add(executor);
    }
    for (String host : blockHosts(task, conf)) {
      if (!out.contains(host)) {
        out.add(host);
      }
    }
    return out;
  }

  static synchronized String lastExecutor(SearchTask task) {
    return LAST.get(task.placementKey());
  }

  static synchronized void record(SearchTask task, String host, String executorId) {
    if (host != null && executorId != null) {
      LAST.put(task.placementKey(), "executor_" + host + "_" + executorId);
    }
  }

  /**
   * The hosts holding most bytes of the files {@code task} reads; empty on stores without locality.
   */
  static List<String> blockHosts(SearchTask task, Configuration conf) {
    if (!BlockHosts.hasLocality(task.location())) {
      return List.of();
    }
    List<String> files;
    try {
      files = task.files(Dataset.openCached(task.location(), task.version(), conf));
    } catch (RuntimeException e) {
      LOG.debug(
          "No files to locate for task {} of {}@v{}: {}",
          task.id(),
          task.location(),
          task.version(),
          e.toString());
      return List.of();
    }
    String key = task.location() + "#" + files;
    synchronized (UnitPlacement.class) {
      List<String> known = HOSTS.get(key);
      if (known != null) {
        return known;
      }
    }
    // Asked outside the lock: a NameNode call per file, which must not hold up other queries'
    // planning.
    List<String> hosts = List.of(BlockHosts.of(files, conf));
    if (!hosts.isEmpty()) {
      synchronized (UnitPlacement.class) {
        HOSTS.put(key, hosts);
      }
    }
    return hosts;
  }
}
