package dev.lancelot.spark.cluster.app;

import java.time.Duration;
import java.util.Iterator;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.MapPartitionsFunction;

/**
 * Ids for a write that an executor can be killed in the middle of: the first attempt of every task
 * passes {@code pause} ids on (so the write task has rows in hand and files open), writes the
 * marker {@code paused-<partition>-<pid>} and waits for the marker {@code release}, which the test
 * writes after killing one of the executors. Later attempts do not wait.
 */
final class KillableWrite implements MapPartitionsFunction<Long, Long> {
  private static final long serialVersionUID = 1L;
  private final String markers;
  private final long pause;

  KillableWrite(String markers, long pause) {
    this.markers = markers;
    this.pause = pause;
  }

  @Override
  public Iterator<Long> call(Iterator<Long> ids) {
    TaskContext task = TaskContext.get();
    return new Iterator<>() {
      private long passed;

      @Override
      public boolean hasNext() {
        return ids.hasNext();
      }

      @Override
      public Long next() {
        if (passed++ == pause && task.attemptNumber() == 0) {
          Markers.touch(
              markers, "paused-" + task.partitionId() + "-" + ProcessHandle.current().pid(), "");
          if (!Markers.await(markers, "release", Duration.ofMinutes(3))) {
            throw new IllegalStateException(
                "The test did not release the paused write within 3 minutes");
          }
        }
        return ids.next();
      }
    };
  }
}
