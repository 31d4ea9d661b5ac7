package dev.lancelot.spark.cluster.app;

import java.time.Duration;
import java.util.Iterator;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.MapPartitionsFunction;

/**
 * Ids for a write whose partition 0 is slow until Spark runs a speculative copy of it: the first
 * attempt of partition 0 waits (at most 2 minutes) for the copy to start, then both attempts write
 * the same rows, the copy only once the first attempt has passed on all of its rows, so that both
 * attempts can finish and report fragments.
 */
final class SpeculatedWrite implements MapPartitionsFunction<Long, Long> {
  private static final long serialVersionUID = 1L;
  private final String markers;

  SpeculatedWrite(String markers) {
    this.markers = markers;
  }

  @Override
  public Iterator<Long> call(Iterator<Long> ids) {
    TaskContext task = TaskContext.get();
    if (task.partitionId() != 0) {
      return ids;
    }
    if (task.attemptNumber() == 0) {
      Markers.await(markers, "copy-started", Duration.ofMinutes(2));
    } else {
      Markers.touch(markers, "copy-started", "attempt " + task.attemptNumber());
      Markers.await(markers, "first-passed-all", Duration.ofMinutes(1));
    }
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        boolean more = ids.hasNext();
        if (!more && task.attemptNumber() == 0) {
          Markers.touch(markers, "first-passed-all", "");
        }
        return more;
      }

      @Override
      public Long next() {
        return ids.next();
      }
    };
  }
}
