package dev.lancelot.engine.distributed;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.index.scalar.BTreeBuildParams;
import dev.lancelot.engine.internal.index.scalar.btree.BTreeBuild;

/**
 * One task of a distributed BTree build ({@link ScalarIndexBuild}): gather the indexed column of a
 * group of fragments with its row addresses (deleted rows excluded), sort it and write the group's
 * BTree segment in Lance's layout ({@link #run}). Self-contained; travels as bytes.
 */
public final class ScalarIndexBuildTask extends GroupTask {
  private static final long serialVersionUID = 1L;
  private final String column;
  private final String name;
  private final int pageSize;

  ScalarIndexBuildTask(
      String location, long version, BTreeBuildParams params, long[] fragments, long liveRows) {
    super(location, version, fragments, liveRows);
    this.column = params.column();
    this.name = params.name();
    this.pageSize = params.pageSize();
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
    BTreeBuildParams params = BTreeBuildParams.of(column).withName(name).withPageSize(pageSize);
    return new WrittenSegment(
        BTreeBuild.writeSegment(
            dataset,
            params,
            FragmentGroups.resolve(dataset, version(), fragmentIds(), "BTree build task")));
  }

  /** The task as bytes ({@link #fromBytes} reads them back). */
  public byte[] toBytes() {
    return Wire.serialize(Wire.SCALAR_INDEX_BUILD_TASK, this);
  }

  /**
   * Reads a task written by {@link #toBytes}.
   *
   * @throws InvalidInputException if the bytes are not a BTree build task
   */
  public static ScalarIndexBuildTask fromBytes(byte[] bytes) {
    return Wire.deserialize(
        Wire.SCALAR_INDEX_BUILD_TASK, bytes, ScalarIndexBuildTask.class, "a BTree build task");
  }

  @Override
  public String toString() {
    return "ScalarIndexBuildTask["
        + location()
        + "@v"
        + version()
        + ", "
        + name
        + ", fragments="
        + fragments()
        + "]";
  }
}
