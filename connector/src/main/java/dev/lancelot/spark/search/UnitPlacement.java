package dev.lancelot.spark.search;

import dev.lancelot.engine.query.plan.AnnUnit;
import dev.lancelot.engine.query.plan.SearchUnit;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where each search unit last ran, on the driver: an index segment (or a group of fragments) is
 * searched again on the executor that already holds it in its cache, so each segment is cached
 * once in the cluster rather than on every executor. The preference is Spark's executor-cache
 * location ({@code executor_<host>_<id>}); Spark still runs the task elsewhere when that executor
 * is gone or stays busy past {@code spark.locality.wait}. Bounded, least recently used first out.
 */
final class UnitPlacement {
  private static final int MAX = 4096;
  private static final Map<String, String> LAST = new LinkedHashMap<>(64, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
      return size() > MAX;
    }
  };

  private UnitPlacement() {}

  /** Segments by uuid (the same in every version that lists them), flat units by their fragments. */
  private static String key(String location, SearchUnit unit) {
    return location + "#" + (unit instanceof AnnUnit a ? "segment:" + a.segment() : "fragments:" + unit.fragments());
  }

  static synchronized String preferred(String location, SearchUnit unit) {
    return LAST.get(key(location, unit));
  }

  static synchronized void record(String location, SearchUnit unit, String host, String executorId) {
    if (host != null && executorId != null) {
      LAST.put(key(location, unit), "executor_" + host + "_" + executorId);
    }
  }
}
