package dev.lancelot.engine.distributed;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.ScanIndexUse;
import dev.lancelot.engine.ScanSettings;
import dev.lancelot.engine.ScanTask;
import dev.lancelot.engine.Scanner;
import java.io.IOException;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.roaringbitmap.RoaringBitmap;

/**
 * A scan planned on the coordinator and run as independent tasks anywhere.
 *
 * <ol>
 *   <li>{@link #plan} takes a {@link Scanner} (columns, filter bound to the version, batch size,
 *       virtual columns) and checks the projection and the filter there, so that tasks fail only
 *       for reasons of their own;
 *   <li>the plan's shared part ({@link #toBytes()}: location, version and {@link ScanSettings})
 *       goes to the workers once; each {@link ScanTask} (one fragment, or a row range of one)
 *       travels on its own ({@link #taskToBytes});
 *   <li>a worker opens the same version (e.g. {@link Dataset#openCached}) and {@linkplain #execute
 *       runs} its task with an allocator of its own.
 * </ol>
 *
 * {@link #statistics()} says how many rows and bytes the plan's tasks cover, from the manifest.
 * Immutable.
 */
public final class ScanPlan implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final int TASK_BYTES = 2 + 3 * Long.BYTES;

  private final String location;
  private final long version;
  private final ScanSettings settings;
  private final transient List<ScanTask> tasks;
  private final transient DatasetStatistics statistics;
  private final transient ScanIndexUse indexUse;
  private final transient String explain;

  private ScanPlan(
      String location,
      long version,
      ScanSettings settings,
      List<ScanTask> tasks,
      DatasetStatistics statistics,
      ScanIndexUse indexUse,
      String explain) {
    this.location = location;
    this.version = version;
    this.settings = settings;
    this.tasks = tasks;
    this.statistics = statistics;
    this.indexUse = indexUse;
    this.explain = explain;
  }

  /**
   * Plans {@code scanner}'s scan as tasks of at most {@code maxRowsPerTask} physical rows (one per
   * fragment, large fragments cut into row ranges). Scalar indexes that answer the filter are
   * evaluated here, once: each task carries the rows they selected in its range ({@link
   * ScanTask#selection()}), and ranges they selected nothing in get no task (decision D52).
   *
   * @throws InvalidInputException for a projection the version cannot return
   */
  public static ScanPlan plan(Scanner scanner, long maxRowsPerTask) {
    scanner.outputSchema(); // checks the projection before any task runs
    Dataset ds = scanner.dataset();
    return new ScanPlan(
        ds.location(),
        ds.version(),
        scanner.settings(),
        List.copyOf(scanner.planTasks(maxRowsPerTask)),
        DatasetStatistics.of(ds),
        scanner.indexUse(),
        scanner.explain());
  }

  /** The dataset location scanned. */
  public String location() {
    return location;
  }

  /** The version scanned; every task runs on it. */
  public long version() {
    return version;
  }

  /** The settings every task applies. */
  public ScanSettings settings() {
    return settings;
  }

  /**
   * The tasks, in scan order; only on the coordinator that planned them (tasks travel on their own:
   * {@link #taskToBytes}).
   */
  public List<ScanTask> tasks() {
    if (tasks == null) {
      throw new IllegalStateException(
          "The tasks of a scan plan stay with the coordinator that planned it; each task travels "
              + "on its own (ScanPlan.taskToBytes)");
    }
    return tasks;
  }

  /** The version's statistics (rows, data-file bytes), on the coordinator. */
  public DatasetStatistics statistics() {
    if (statistics == null) {
      throw new IllegalStateException("Scan statistics are known on the coordinator only");
    }
    return statistics;
  }

  /** How the scan uses scalar indexes, on the coordinator. */
  public ScanIndexUse indexUse() {
    if (indexUse == null) {
      throw new IllegalStateException("Scan index use is known on the coordinator only");
    }
    return indexUse;
  }

  /** The scan's explain text ({@link Scanner#explain()}), on the coordinator. */
  public String explain() {
    if (explain == null) {
      throw new IllegalStateException("A scan's explain text is known on the coordinator only");
    }
    return explain;
  }

  /**
   * Runs {@code task} on {@code dataset} (the plan's version, opened by the worker); batches are
   * allocated from {@code allocator} and valid until the next call on the iterator.
   *
   * @throws InvalidInputException if {@code dataset} is not the plan's version
   */
  public CloseableIterator<VectorSchemaRoot> execute(
      Dataset dataset, ScanTask task, BufferAllocator allocator) {
    if (!dataset.location().equals(location) || dataset.version() != version) {
      throw new InvalidInputException(
          "Cannot run a scan task of "
              + location
              + " version "
              + version
              + " on "
              + dataset.location()
              + " version "
              + dataset.version()
              + ": open the plan's version.");
    }
    return dataset.newScan().with(settings).allocator(allocator).execute(task);
  }

  /** The shared part of the plan (location, version, settings), without its tasks. */
  public byte[] toBytes() {
    return Wire.serialize(Wire.SCAN_PLAN, this);
  }

  /** The shared part of a plan from {@link #toBytes()}; its {@link #tasks()} stay unknown. */
  public static ScanPlan fromBytes(byte[] bytes) {
    return Wire.deserialize(Wire.SCAN_PLAN, bytes, ScanPlan.class, "a scan plan");
  }

  /**
   * One task's bytes: a kind tag, the format, then fragment id, first row and end row, then the
   * task's selection in RoaringBitmap's portable format when it has one.
   */
  public static byte[] taskToBytes(ScanTask task) {
    RoaringBitmap selection = task.selection();
    int extra = selection == null ? 0 : selection.serializedSizeInBytes();
    ByteBuffer b =
        ByteBuffer.allocate(TASK_BYTES + extra)
            .put(Wire.SCAN_TASK)
            .put(Wire.FORMAT)
            .putLong(task.fragmentId())
            .putLong(task.startRow())
            .putLong(task.endRow());
    if (selection != null) {
      selection.serialize(b);
    }
    return b.array();
  }

  /** A task from {@link #taskToBytes}. */
  public static ScanTask taskFromBytes(byte[] bytes) {
    Wire.check(Wire.SCAN_TASK, bytes, "a scan task");
    if (bytes.length < TASK_BYTES) {
      throw new InvalidInputException(
          "Cannot read a scan task: expected "
              + TASK_BYTES
              + " bytes (more with a selection), got "
              + bytes.length);
    }
    ByteBuffer b = ByteBuffer.wrap(bytes, 2, bytes.length - 2);
    try {
      long fragment = b.getLong();
      long start = b.getLong();
      long end = b.getLong();
      RoaringBitmap selection = null;
      if (b.hasRemaining()) {
        selection = new RoaringBitmap();
        selection.deserialize(b.slice());
        if (selection.serializedSizeInBytes() != b.remaining()) {
          throw new InvalidInputException(
              "Cannot read a scan task: its selection takes "
                  + selection.serializedSizeInBytes()
                  + " bytes of the "
                  + b.remaining()
                  + " left");
        }
      }
      return new ScanTask(fragment, start, end, selection);
    } catch (IOException | RuntimeException e) {
      if (e instanceof InvalidInputException iie) {
        throw iie;
      }
      throw new InvalidInputException("Cannot read a scan task: " + e.getMessage(), e);
    }
  }

  @Override
  public String toString() {
    return "ScanPlan[" + location + " v" + version + ", " + settings + "]";
  }
}
