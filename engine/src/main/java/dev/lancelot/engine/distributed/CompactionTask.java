package dev.lancelot.engine.distributed;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.internal.maintenance.Compactor;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * One group of a {@link CompactionPlan}: copies the live rows of its fragments, in order, into new
 * fragments of at most the target rows each ({@link #run}), written but not committed.
 * Self-contained; {@linkplain #toBytes() travels as bytes}.
 */
public final class CompactionTask implements Serializable {
  private static final long serialVersionUID = 1L;
  private final Compactor.Job job;
  private final int group;

  CompactionTask(Compactor.Job job, int group) {
    this.job = job;
    this.group = group;
  }

  /** The dataset location. */
  public String location() {
    return job.location();
  }

  /** The version the task reads. */
  public long version() {
    return job.version();
  }

  /** The group's position in its plan. */
  public int group() {
    return group;
  }

  /** The fragments the task rewrites, in order. */
  public List<Long> fragments() {
    List<Long> out = new ArrayList<>();
    for (long f : job.groups().get(group)) {
      out.add(f);
    }
    return out;
  }

  /**
   * Rewrites the group on {@code dataset} (the plan's version, e.g. from {@link
   * Dataset#openCached}); on failure nothing it wrote is left behind.
   */
  public RewrittenGroup run(Dataset dataset) {
    return new RewrittenGroup(group, Compactor.rewrite(dataset, job, group));
  }

  /** The task as bytes ({@link #fromBytes} reads them back). */
  public byte[] toBytes() {
    return Wire.serialize(Wire.COMPACTION_TASK, this);
  }

  /**
   * Reads a task written by {@link #toBytes}.
   *
   * @throws InvalidInputException if the bytes are not a compaction task
   */
  public static CompactionTask fromBytes(byte[] bytes) {
    return Wire.deserialize(Wire.COMPACTION_TASK, bytes, CompactionTask.class, "a compaction task");
  }

  @Override
  public String toString() {
    return "CompactionTask["
        + job.location()
        + "@v"
        + job.version()
        + ", fragments="
        + fragments()
        + "]";
  }
}
