package dev.lancelot.engine.distributed;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.index.vector.build.VectorIndexBuilder;
import java.util.List;

/**
 * One task of a vector index build: assign and encode the rows of a group of fragments with the
 * build's {@link IndexModel}, build the HNSW graphs when the type has them, and write the group's
 * index segment in Lance's layout ({@link #run}). Self-contained but for the model, which the
 * coordinator ships once for all tasks.
 */
public final class IndexBuildTask extends GroupTask {
  private static final long serialVersionUID = 1L;
  private final String column;
  private final VectorIndexSpec spec;

  IndexBuildTask(
      String location,
      long version,
      String column,
      VectorIndexSpec spec,
      long[] fragments,
      long liveRows) {
    super(location, version, fragments, liveRows);
    this.column = column;
    this.spec = spec;
  }

  /**
   * Writes this task's segment on {@code dataset} (the build's version, e.g. from {@link
   * Dataset#openCached}) with {@code model}; returns it for the coordinator to commit.
   */
  public WrittenSegment run(Dataset dataset, IndexModel model) {
    List<DataFragment> group =
        FragmentGroups.resolve(dataset, version(), fragmentIds(), "Index build task");
    return new WrittenSegment(
        VectorIndexBuilder.build(dataset, column, spec, group, model.internal()).metadata());
  }

  /** The task as bytes ({@link #fromBytes} reads them back). */
  public byte[] toBytes() {
    return Wire.serialize(Wire.INDEX_BUILD_TASK, this);
  }

  /**
   * Reads a task written by {@link #toBytes}.
   *
   * @throws InvalidInputException if the bytes are not an index build task
   */
  public static IndexBuildTask fromBytes(byte[] bytes) {
    return Wire.deserialize(
        Wire.INDEX_BUILD_TASK, bytes, IndexBuildTask.class, "an index build task");
  }

  @Override
  public String toString() {
    return "IndexBuildTask[" + location() + "@v" + version() + ", fragments=" + fragments() + "]";
  }
}
