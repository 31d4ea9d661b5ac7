package dev.lancelot.engine.distributed;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.table.Snapshot;
import java.util.ArrayList;
import java.util.List;

/**
 * Consecutive fragments cut into groups of at most a number of live rows (by the manifest's
 * counts), one index segment each; a fragment is never split, so a group holds at least one.
 */
final class FragmentGroups {
  private FragmentGroups() {}

  record Group(long[] fragments, long rows) {}

  /** Throws unless {@code rowsPerSegment} is at least 1. */
  static void checkRowsPerSegment(long rowsPerSegment) {
    if (rowsPerSegment < 1) {
      throw new InvalidInputException(
          "Cannot build an index: rows per segment must be at least 1, got "
              + rowsPerSegment
              + ".");
    }
  }

  static List<Group> of(List<DataFragment> fragments, long rowsPerSegment) {
    List<Group> out = new ArrayList<>();
    List<Long> current = new ArrayList<>();
    long rows = 0;
    for (DataFragment f : fragments) {
      long live = Snapshot.liveRows(f);
      if (!current.isEmpty() && rows + live > rowsPerSegment) {
        out.add(new Group(current.stream().mapToLong(Long::longValue).toArray(), rows));
        current.clear();
        rows = 0;
      }
      current.add(f.getId());
      rows += live;
    }
    if (!current.isEmpty()) {
      out.add(new Group(current.stream().mapToLong(Long::longValue).toArray(), rows));
    }
    return out;
  }

  /**
   * The fragments with these ids of {@code dataset}, which must be the version {@code version} a
   * task was planned on.
   */
  static List<DataFragment> resolve(Dataset dataset, long version, long[] ids, String what) {
    if (dataset.version() != version) {
      throw new IllegalStateException(
          what
              + " planned on version "
              + version
              + " of "
              + dataset.location()
              + " run on version "
              + dataset.version());
    }
    List<DataFragment> group = new ArrayList<>(ids.length);
    for (long id : ids) {
      group.add(
          DatasetInternals.snapshot(dataset)
              .fragment(id)
              .orElseThrow(
                  () ->
                      new LancelotException(
                          "Cannot index fragment "
                              + id
                              + " of "
                              + dataset.location()
                              + "@v"
                              + version
                              + ": the version has no such fragment")));
    }
    return group;
  }
}
