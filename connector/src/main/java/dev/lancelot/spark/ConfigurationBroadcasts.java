package dev.lancelot.spark;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.WeakHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.SparkContext;
import org.apache.spark.broadcast.Broadcast;

/**
 * Hadoop configurations shipped to executors as Spark broadcasts, one per distinct content and
 * Spark context. A session's Hadoop configuration serializes to about 100 KiB; carried inside each
 * job's closure it is serialized several times per job (closure check, task binary) and read by
 * every task, which costs a short interactive query (a single vector search) milliseconds. A
 * broadcast is written once, fetched once per executor, and reused by every later job whose
 * configuration has the same entries; a changed setting (e.g. credentials set on the session) gives
 * a new broadcast.
 */
public final class ConfigurationBroadcasts {
  private static final int KEEP = 8;
  private static final Map<
          SparkContext, Map<Map<String, String>, Broadcast<SerializableConfiguration>>>
      CACHE = new WeakHashMap<>();

  private ConfigurationBroadcasts() {}

  /** The broadcast holding {@code conf}'s entries, made on first use. */
  public static Broadcast<SerializableConfiguration> of(SparkContext context, Configuration conf) {
    Map<String, String> entries = new HashMap<>();
    for (Map.Entry<String, String> e : conf) {
      entries.put(e.getKey(), e.getValue());
    }
    synchronized (CACHE) {
      Map<Map<String, String>, Broadcast<SerializableConfiguration>> forContext =
          CACHE.computeIfAbsent(
              context,
              c ->
                  new LinkedHashMap<>(16, 0.75f, true) {
                    @Override
                    protected boolean removeEldestEntry(
                        Map.Entry<Map<String, String>, Broadcast<SerializableConfiguration>> e) {
                      // Dropped entries are not destroyed: a running job may still use them;
                      // Spark's context cleaner
                      // removes a broadcast once nothing references it.
                      return size() > KEEP;
                    }
                  });
      Broadcast<SerializableConfiguration> b = forContext.get(entries);
      if (b == null) {
        b =
            context.broadcast(
                new SerializableConfiguration(new Configuration(conf)),
                scala.reflect.ClassTag$.MODULE$.apply(SerializableConfiguration.class));
        forContext.put(entries, b);
      }
      return b;
    }
  }
}
