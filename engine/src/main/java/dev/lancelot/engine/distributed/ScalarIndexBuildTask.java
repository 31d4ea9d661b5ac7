package dev.lancelot.engine.distributed;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.scalar.ScalarBuildParams;
import dev.lancelot.engine.internal.index.scalar.btree.BTreeBuild;

/**
 * One task of a distributed scalar index build ({@link ScalarIndexBuild}): gather the indexed
 * column of a group of fragments with its row addresses (deleted rows excluded) and write the
 * group's segment of the index's kind in Lance's layout ({@link #run}). Self-contained; travels as
 * bytes.
 */
public final class ScalarIndexBuildTask extends GroupTask {
  private static final long serialVersionUID = 2L;
  private final IndexType type;
  private final String column;
  private final String name;
  private final int pageSize;
  private final long rowsPerZone;
  private final long bloomItems;
  private final double bloomProbability;

  ScalarIndexBuildTask(
      String location, long version, ScalarBuildParams params, long[] fragments, long liveRows) {
    super(location, version, fragments, liveRows);
    this.type = params.type();
    this.column = params.column();
    this.name = params.name();
    this.pageSize = params.pageSize();
    this.rowsPerZone = params.rowsPerZone();
    this.bloomItems = params.bloomItems();
    this.bloomProbability = params.bloomProbability();
  }

  /** The index's name. */
  public String indexName() {
    return name;
  }

  /**
   * Writes this task's segment on {@code dataset} (the build's version, e.g. from {@link
   * Dataset#openCached}); returns it for the coordinator to commit.
   */
  public WrittenSegment run(Dataset dataset) {
    ScalarBuildParams params =
        ScalarBuildParams.of(type, column)
            .withName(name)
            .withPageSize(pageSize)
            .withRowsPerZone(rowsPerZone)
            .withBloomFilter(bloomItems, bloomProbability);
    return new WrittenSegment(
        BTreeBuild.writeSegment(
            dataset,
            params,
            FragmentGroups.resolve(dataset, version(), fragmentIds(), "scalar index build task")));
  }

  /** The task as bytes ({@link #fromBytes} reads them back). */
  public byte[] toBytes() {
    return Wire.serialize(Wire.SCALAR_INDEX_BUILD_TASK, this);
  }

  /**
   * Reads a task written by {@link #toBytes}.
   *
   * @throws InvalidInputException if the bytes are not a scalar index build task
   */
  public static ScalarIndexBuildTask fromBytes(byte[] bytes) {
    return Wire.deserialize(
        Wire.SCALAR_INDEX_BUILD_TASK,
        bytes,
        ScalarIndexBuildTask.class,
        "a scalar index build task");
  }

  @Override
  public String toString() {
    return "ScalarIndexBuildTask["
        + location()
        + "@v"
        + version()
        + ", "
        + name
        + " ("
        + type
        + "), fragments="
        + fragments()
        + "]";
  }
}
