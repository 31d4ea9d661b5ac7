package dev.lancelot.spark.search;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentInfo;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.internal.query.plan.AnnUnit;
import dev.lancelot.engine.internal.query.plan.SearchUnit;
import dev.lancelot.spark.read.BlockHosts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
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
   * Segments by uuid (the same in every version that lists them), flat units by their fragments.
   */
  private static String key(String location, SearchUnit unit) {
    return location
        + "#"
        + (unit instanceof AnnUnit a ? "segment:" + a.segment() : "fragments:" + unit.fragments());
  }

  /**
   * Spark's preferred locations of {@code unit} of a search of {@code location} at {@code version}:
   * the executor that last searched it (if any), then the hosts holding most of its files' bytes.
   */
  static List<String> preferred(
      String location, long version, SearchUnit unit, Configuration conf) {
    List<String> out = new ArrayList<>(1 + 3);
    String executor = lastExecutor(location, unit);
    if (executor != null) {
      out.add(executor);
    }
    for (String host : blockHosts(location, version, unit, conf)) {
      if (!out.contains(host)) {
        out.add(host);
      }
    }
    return out;
  }

  static synchronized String lastExecutor(String location, SearchUnit unit) {
    return LAST.get(key(location, unit));
  }

  static synchronized void record(
      String location, SearchUnit unit, String host, String executorId) {
    if (host != null && executorId != null) {
      LAST.put(key(location, unit), "executor_" + host + "_" + executorId);
    }
  }

  /**
   * The hosts holding most bytes of the files {@code unit} reads; empty on stores without locality.
   */
  static List<String> blockHosts(
      String location, long version, SearchUnit unit, Configuration conf) {
    if (!BlockHosts.hasLocality(location)) {
      return List.of();
    }
    List<String> files;
    try {
      files = files(Dataset.openCached(location, version, conf), unit, conf);
    } catch (RuntimeException e) {
      LOG.debug(
          "No files to locate for unit {} of {}@v{}: {}",
          unit.id(),
          location,
          version,
          e.toString());
      return List.of();
    }
    String key = location + "#" + files;
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

  /**
   * The files a unit reads: an index segment's files, or the data files of a flat unit's fragments.
   */
  static List<String> files(Dataset ds, SearchUnit unit, Configuration conf) {
    String root = ds.location().replaceAll("/+$", "");
    List<String> files = new ArrayList<>();
    if (unit instanceof AnnUnit a) {
      IndexSegment segment =
          ds.indexes().segments(a.indexName()).stream()
              .filter(s -> s.uuid().toString().equals(a.segment()))
              .findFirst()
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          "Segment "
                              + a.segment()
                              + " of index "
                              + a.indexName()
                              + " is not in version "
                              + ds.version()
                              + " of "
                              + ds.location()));
      String dir = root + "/" + segment.directory();
      for (String f : segment.files()) {
        files.add(dir + "/" + f);
      }
      if (files
          .isEmpty()) { // a segment whose manifest entry does not list its files (older writers)
        try {
          Path path = new Path(dir);
          for (FileStatus status : path.getFileSystem(conf).listStatus(path)) {
            if (status.isFile()) {
              files.add(status.getPath().toString());
            }
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        files.sort(null);
      }
      return files;
    }
    Set<Long> wanted = new HashSet<>(unit.fragments());
    for (FragmentInfo fragment : ds.fragments()) {
      if (wanted.contains(fragment.id())) {
        fragment.dataFiles().forEach(f -> files.add(root + "/data/" + f));
      }
    }
    return files;
  }
}
