package dev.lancelot.engine.distributed;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.IndexStatistics;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.scalar.BTreeBuildParams;
import dev.lancelot.engine.index.scalar.BTreeIndexStatistics;
import dev.lancelot.engine.index.scalar.ScalarBuildParams;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexMetadata;
import dev.lancelot.engine.internal.index.IndexInternals;
import dev.lancelot.engine.internal.index.scalar.btree.BTreeBuild;
import java.util.ArrayList;
import java.util.List;

/**
 * Scalar index builds whose segments are written by tasks. For a bitmap, label list, zone map or
 * bloom filter one task writes the whole segment (decision D64). For a BTree the engine checks the
 * request where this is called, cuts the fragments into groups of at most {@code rowsPerSegment}
 * live rows (a fragment is never split), one {@link ScalarIndexBuildTask} each; the caller's {@link
 * TaskRunner} runs them where it chooses (e.g. one Spark task per group, where the data is); each
 * task gathers and sorts its group's values alone and writes a whole BTree segment covering its
 * fragments; and the engine commits every {@link WrittenSegment} it gets back in one version. So no
 * process holds more than one group's values, and the index is the multi-segment BTree Lance 7's
 * own distributed builds write (every lookup searches each segment). With one group, the segment is
 * the one {@link dev.lancelot.engine.index.scalar.BTreeIndexBuilder} writes.
 *
 * <pre>{@code
 * Dataset v2 = ScalarIndexBuild.create(dataset, BTreeBuildParams.of("tenant_id"), 10_000_000,
 *     tasks -> tasks.stream().map(t -> t.run(Dataset.openCached(...))).toList());
 * }</pre>
 */
public final class ScalarIndexBuild {
  private ScalarIndexBuild() {}

  /** Runs the tasks of a build wherever the caller chooses and returns their segments. */
  @FunctionalInterface
  public interface TaskRunner {
    /**
     * Runs every task ({@link ScalarIndexBuildTask#run}) and returns the segments, in task order; a
     * failure fails the build and nothing is committed.
     */
    List<WrittenSegment> run(List<ScalarIndexBuildTask> tasks);
  }

  /**
   * Builds BTree index {@code params.name()} over every fragment of {@code dataset}'s version and
   * commits it; returns the new version (the caller closes it). A version without fragments gets
   * one empty segment, as a single-process build writes.
   *
   * @throws InvalidInputException if {@code rowsPerSegment} is below 1, or for a column, name or
   *     dataset the build refuses (checked before any task runs)
   */
  public static Dataset create(
      Dataset dataset, BTreeBuildParams params, long rowsPerSegment, TaskRunner runner) {
    return create(dataset, ScalarBuildParams.of(params), rowsPerSegment, runner);
  }

  /**
   * Builds scalar index {@code params.name()} of {@code params.type()} over every fragment of
   * {@code dataset}'s version and commits it; returns the new version (the caller closes it). A
   * BTree gets one segment per group of at most {@code rowsPerSegment} live rows; the other kinds
   * (bitmap, zone map, bloom filter) get one segment, written by one task, as Lance 7 builds them
   * (decision D64).
   *
   * @throws InvalidInputException if {@code rowsPerSegment} is below 1, or for a column, name or
   *     dataset the build refuses (checked before any task runs)
   */
  public static Dataset create(
      Dataset dataset, ScalarBuildParams params, long rowsPerSegment, TaskRunner runner) {
    FragmentGroups.checkRowsPerSegment(rowsPerSegment);
    return BTreeBuild.build(
        dataset, params, fragments -> write(dataset, params, rowsPerSegment, runner, fragments));
  }

  /**
   * Brings scalar index {@code name} (of a kind lancelot builds) up to date with the fragments
   * appended since it was built or last optimized: new segments over those fragments only (grouped
   * as {@link #create} groups them, with the index's page size), added beside its segments in one
   * version. Returns {@code dataset} itself when every fragment is covered. Lance 7 reads the
   * result (a multi-segment BTree) but cannot optimize it in turn (decision D51).
   *
   * @throws InvalidInputException when there is no index {@code name}, or it is of a kind lancelot
   *     does not build
   */
  public static Dataset optimize(
      Dataset dataset, String name, long rowsPerSegment, TaskRunner runner) {
    FragmentGroups.checkRowsPerSegment(rowsPerSegment);
    List<IndexSegment> segments = dataset.indexes().segments(name);
    if (segments.isEmpty()) {
      throw IndexStatistics.noSuchIndex(dataset, name, "optimize");
    }
    IndexType type = segments.get(0).type();
    if (!ScalarBuildParams.BUILT.contains(type)) {
      throw new InvalidInputException(
          "Cannot optimize index \""
              + name
              + "\" of "
              + dataset.location()
              + " as a scalar index: it is a "
              + type
              + " index"
              + (type.isVector()
                  ? " (optimize vector indexes with IndexBuild.optimize)."
                  : ", which lancelot reads but does not build; rebuild it with Lance."));
    }
    List<DataFragment> unindexed = IndexInternals.unindexedFragments(dataset.indexes(), name);
    if (unindexed.isEmpty()) {
      return dataset;
    }
    ScalarBuildParams params = paramsOf(dataset, name);
    ScalarBuildParams p = params;
    return BTreeBuild.extend(
        dataset, p, unindexed, fragments -> write(dataset, p, rowsPerSegment, runner, fragments));
  }

  /**
   * The settings index {@code name} was built with (kind, column, page size, zone size,
   * bloom-filter probability), as {@code ScalarBuildParams} naming it; e.g. to rebuild it.
   *
   * @throws InvalidInputException when there is no index {@code name}, or it is of a kind lancelot
   *     does not build
   */
  public static ScalarBuildParams paramsOf(Dataset dataset, String name) {
    List<IndexSegment> segments = dataset.indexes().segments(name);
    if (segments.isEmpty()) {
      throw IndexStatistics.noSuchIndex(dataset, name, "describe");
    }
    IndexType type = segments.get(0).type();
    if (type == IndexType.BTREE) {
      BTreeIndexStatistics stats = BTreeIndexStatistics.of(dataset, name);
      ScalarBuildParams params =
          ScalarBuildParams.of(IndexType.BTREE, stats.column()).withName(name);
      return stats.pageSize() > 0 ? params.withPageSize(stats.pageSize()) : params;
    }
    if (!ScalarBuildParams.BUILT.contains(type)) {
      throw new InvalidInputException(
          "Index \""
              + name
              + "\" of "
              + dataset.location()
              + " is a "
              + type
              + " index, which lancelot does not build.");
    }
    return BTreeBuild.paramsOf(dataset, name, segments.get(0));
  }

  private static List<IndexMetadata> write(
      Dataset dataset,
      ScalarBuildParams params,
      long rowsPerSegment,
      TaskRunner runner,
      List<DataFragment> fragments) {
    List<ScalarIndexBuildTask> tasks = new ArrayList<>();
    // Only BTrees are cut into several segments; the other kinds are written whole by one task.
    long perSegment = params.type() == IndexType.BTREE ? rowsPerSegment : Long.MAX_VALUE;
    for (FragmentGroups.Group g : FragmentGroups.of(fragments, perSegment)) {
      tasks.add(
          new ScalarIndexBuildTask(
              dataset.location(), dataset.version(), params, g.fragments(), g.rows()));
    }
    if (tasks.isEmpty()) {
      tasks.add(
          new ScalarIndexBuildTask(dataset.location(), dataset.version(), params, new long[0], 0));
    }
    List<WrittenSegment> written = runner.run(List.copyOf(tasks));
    List<IndexMetadata> out = new ArrayList<>(written.size());
    for (WrittenSegment s : written) {
      out.add(s.internal());
    }
    if (written.size() != tasks.size()) {
      IllegalStateException e =
          new IllegalStateException(
              "The index build ran "
                  + tasks.size()
                  + " tasks but got "
                  + written.size()
                  + " segments");
      BTreeBuild.deleteSegments(dataset, out, e);
      throw e;
    }
    return out;
  }
}
