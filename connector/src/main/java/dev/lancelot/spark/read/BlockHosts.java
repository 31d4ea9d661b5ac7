package dev.lancelot.spark.read;

import dev.lancelot.engine.FragmentInfo;
import java.io.IOException;
import java.net.URI;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hosts that hold a fragment's data, for Spark's preferred locations: on a file system whose
 * block locations name real machines (HDFS and its relatives), the hosts with the most bytes of the
 * fragment's data files, at most {@value #MAX_HOSTS} (as Spark's own file sources prefer). Other
 * stores have no locality to offer (object stores, or a local path, whose "localhost" is every
 * machine and none), so their partitions prefer nothing. Asking is a metadata call per data file,
 * on the driver, while planning; a failure only loses the preference. Vector search units use
 * {@link #of(List, Configuration)} for the files they read
 * (dev.lancelot.spark.search.UnitPlacement).
 */
public final class BlockHosts {
  private static final Logger LOG = LoggerFactory.getLogger(BlockHosts.class);
  static final int MAX_HOSTS = 3;
  private static final Set<String> WITH_LOCALITY = Set.of("hdfs", "viewfs", "webhdfs", "swebhdfs");
  private static final String[] NONE = new String[0];

  private final Configuration conf;
  private final boolean enabled;
  private final Map<Long, String[]> byFragment = new HashMap<>();

  BlockHosts(String location, Configuration conf) {
    this.conf = conf;
    this.enabled = hasLocality(location);
  }

  /**
   * Whether the store of {@code location} reports block hosts worth preferring (HDFS and its
   * relatives).
   */
  public static boolean hasLocality(String location) {
    String scheme = URI.create(location).getScheme();
    return scheme != null && WITH_LOCALITY.contains(scheme.toLowerCase(java.util.Locale.ROOT));
  }

  /**
   * The preferred hosts of {@code fragment} (empty when the store has no locality or cannot say).
   */
  String[] of(FragmentInfo fragment) {
    if (!enabled) {
      return NONE;
    }
    return byFragment.computeIfAbsent(fragment.id(), id -> of(fragment.dataFileLocations(), conf));
  }

  /**
   * The hosts holding the most bytes of {@code files} (full locations, of a store with {@linkplain
   * #hasLocality locality}), at most {@value #MAX_HOSTS}, most bytes first (ties by name); empty
   * when the store cannot say.
   */
  public static String[] of(List<String> files, Configuration conf) {
    Map<String, Long> bytes = new HashMap<>();
    try {
      for (String file : files) {
        Path path = new Path(file);
        FileSystem fs = path.getFileSystem(conf);
        FileStatus status = fs.getFileStatus(path);
        for (BlockLocation block : fs.getFileBlockLocations(status, 0, status.getLen())) {
          for (String host : block.getHosts()) {
            bytes.merge(host, block.getLength(), Long::sum);
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("No block locations for {}: {}", files, e.toString());
      return NONE;
    }
    return bytes.entrySet().stream()
        .sorted(
            Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder())
                .thenComparing(Map.Entry.comparingByKey()))
        .limit(MAX_HOSTS)
        .map(Map.Entry::getKey)
        .toArray(String[]::new);
  }
}
