package dev.lancelot.engine.distributed;

import dev.lancelot.engine.CompactionOptions;
import dev.lancelot.engine.CompactionResult;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentMetadata;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.internal.maintenance.Compactor;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * A compaction of one dataset version split into tasks (Lance's plan / rewrite / commit): the
 * coordinator plans the fragment groups to rewrite ({@link #plan}, the same groups {@link
 * Dataset#compact} rewrites), each {@link CompactionTask} copies one group's live rows into new
 * fragments anywhere the dataset can be opened, and the coordinator {@linkplain #commit commits}
 * every rewritten group in one {@code Rewrite} version, remapping the index segments that covered
 * them. Immutable; {@linkplain #toBytes() travels as bytes}.
 */
public final class CompactionPlan implements Serializable {
  private static final long serialVersionUID = 1L;
  private final Compactor.Job job;

  private CompactionPlan(Compactor.Job job) {
    this.job = job;
  }

  /**
   * Plans the compaction of {@code dataset}'s version with {@code options}.
   *
   * @throws dev.lancelot.engine.LancelotException for a dataset lancelot cannot compact (data files
   *     of another format version)
   */
  public static CompactionPlan plan(Dataset dataset, CompactionOptions options) {
    return new CompactionPlan(Compactor.plan(dataset, options));
  }

  /** The dataset location. */
  public String location() {
    return job.location();
  }

  /** The version compacted; tasks and the commit must run on it. */
  public long version() {
    return job.version();
  }

  /** True when nothing needs compacting: no tasks, and {@link #commit} commits nothing. */
  public boolean isEmpty() {
    return job.groups().isEmpty();
  }

  /** One task per fragment group, in plan order. */
  public List<CompactionTask> tasks() {
    List<CompactionTask> out = new ArrayList<>(job.groups().size());
    for (int g = 0; g < job.groups().size(); g++) {
      out.add(new CompactionTask(job, g));
    }
    return out;
  }

  /**
   * Commits the rewritten groups (one per task, in any order) as one version; returns {@code
   * dataset} uncommitted when the plan is empty. On failure the rewritten files are deleted and
   * nothing is committed.
   *
   * @throws InvalidInputException if a group is missing or given twice
   */
  public CompactionResult commit(Dataset dataset, List<RewrittenGroup> rewritten) {
    if (isEmpty()) {
      return CompactionResult.nothingToDo(dataset);
    }
    List<List<FragmentMetadata>> byGroup = new ArrayList<>();
    for (int g = 0; g < job.groups().size(); g++) {
      byGroup.add(null);
    }
    for (RewrittenGroup r : rewritten) {
      if (r.group() < 0 || r.group() >= byGroup.size() || byGroup.get(r.group()) != null) {
        throw new InvalidInputException(
            "Cannot commit the compaction of "
                + job.location()
                + ": group "
                + r.group()
                + " is not in the plan or was given twice");
      }
      byGroup.set(r.group(), r.fragments());
    }
    if (byGroup.contains(null)) {
      throw new InvalidInputException(
          "Cannot commit the compaction of "
              + job.location()
              + ": group "
              + byGroup.indexOf(null)
              + " was not rewritten");
    }
    return Compactor.commit(dataset, job, byGroup);
  }

  /** The plan as bytes ({@link #fromBytes} reads them back). */
  public byte[] toBytes() {
    return Wire.serialize(Wire.COMPACTION_PLAN, job);
  }

  /**
   * Reads a plan written by {@link #toBytes}.
   *
   * @throws InvalidInputException if the bytes are not a compaction plan
   */
  public static CompactionPlan fromBytes(byte[] bytes) {
    return new CompactionPlan(
        Wire.deserialize(Wire.COMPACTION_PLAN, bytes, Compactor.Job.class, "a compaction plan"));
  }

  @Override
  public String toString() {
    return "CompactionPlan["
        + job.location()
        + "@v"
        + job.version()
        + ", groups="
        + job.groups().size()
        + "]";
  }
}
