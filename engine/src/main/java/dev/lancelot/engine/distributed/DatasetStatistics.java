package dev.lancelot.engine.distributed;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.ScanTask;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFile;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.schema.LanceField;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Statistics of one dataset version for a query planner, from its manifest alone (no data file is
 * read): live rows, rows per scan task, and data file sizes per column. A deletion file entry with
 * {@code num_deleted_rows = 0} comes from writers that did not record the count: its fragment's
 * live rows are then unknown, and nothing here claims them. Immutable.
 */
public final class DatasetStatistics {
  private final List<DataFragment> fragments;
  private final Map<Long, DataFragment> byId = new HashMap<>();
  private final Map<String, List<Integer>> fieldIds = new HashMap<>();

  private DatasetStatistics(List<DataFragment> fragments, List<LanceField> fields) {
    this.fragments = List.copyOf(fragments);
    fragments.forEach(f -> byId.put(f.getId(), f));
    for (LanceField f : fields) {
      fieldIds.put(f.name(), f.preOrder().stream().map(LanceField::id).toList());
    }
  }

  /** The statistics of {@code ds}'s version. */
  public static DatasetStatistics of(Dataset ds) {
    return new DatasetStatistics(
        DatasetInternals.snapshot(ds).fragments(), ds.lanceSchema().fields());
  }

  /**
   * Live rows (physical minus deleted) of the version; empty when a fragment's deletions are not
   * counted.
   */
  public OptionalLong exactLiveRows() {
    long rows = 0;
    for (DataFragment f : fragments) {
      if (!deletionsCounted(f)) {
        return OptionalLong.empty();
      }
      rows += f.getPhysicalRows() - deletedRows(f);
    }
    return OptionalLong.of(rows);
  }

  /**
   * Physical rows minus the deletions the manifest counts: the live rows, or more when some are not
   * counted.
   */
  public long estimatedLiveRows() {
    long rows = 0;
    for (DataFragment f : fragments) {
      rows += f.getPhysicalRows() - deletedRows(f);
    }
    return rows;
  }

  /**
   * The fewest live rows {@code task} can return: its physical rows minus every deleted row of its
   * fragment (they could all fall in its range); 0 when the fragment's deletions are not counted.
   */
  public long liveRowsAtLeast(ScanTask task) {
    DataFragment f = byId.get(task.fragmentId());
    if (f == null || !deletionsCounted(f)) {
      return 0;
    }
    return Math.max(0, task.physicalRows() - deletedRows(f));
  }

  /**
   * Bytes of the data files holding any of {@code columns} (top-level names), summed over the
   * fragments; empty when a file's size is not recorded. Files holding only other columns (added
   * later by a schema change) are not counted; a file holding several columns counts whole.
   */
  public OptionalLong dataFileBytes(List<String> columns) {
    Set<Integer> wanted = new HashSet<>();
    for (String c : columns) {
      wanted.addAll(fieldIds.getOrDefault(c, List.of()));
    }
    long bytes = 0;
    for (DataFragment f : fragments) {
      for (DataFile file : f.getFilesList()) {
        if (file.getFieldsList().stream().noneMatch(wanted::contains)) {
          continue;
        }
        if (file.getFileSizeBytes() <= 0) {
          return OptionalLong.empty();
        }
        bytes += file.getFileSizeBytes();
      }
    }
    return OptionalLong.of(bytes);
  }

  /**
   * The first of {@code tasks}, in order, that together return at least {@code rows} live rows (or
   * all).
   */
  public List<ScanTask> firstTasksHolding(List<ScanTask> tasks, long rows) {
    List<ScanTask> out = new ArrayList<>();
    long atLeast = 0;
    for (ScanTask t : tasks) {
      if (atLeast >= rows) {
        break;
      }
      out.add(t);
      atLeast += liveRowsAtLeast(t);
    }
    return out;
  }

  private static boolean deletionsCounted(DataFragment f) {
    return !f.hasDeletionFile() || f.getDeletionFile().getNumDeletedRows() > 0;
  }

  private static long deletedRows(DataFragment f) {
    return f.hasDeletionFile() ? f.getDeletionFile().getNumDeletedRows() : 0;
  }
}
