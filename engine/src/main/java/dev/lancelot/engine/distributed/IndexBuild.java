package dev.lancelot.engine.distributed;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexMetadata;
import dev.lancelot.engine.internal.index.vector.build.TrainedModel;
import dev.lancelot.engine.internal.index.vector.build.VectorIndexBuilder;
import dev.lancelot.engine.internal.index.vector.build.VectorIndexOps;
import java.util.ArrayList;
import java.util.List;

/**
 * Vector index builds whose segments are written by tasks (SPEC S7): the engine checks the request
 * and trains the model once, where this is called (IVF centroids and the PQ codebook or SQ bounds,
 * exactly as a local build); cuts the fragments into groups of at most {@code rowsPerSegment} live
 * rows (a fragment is never split), one {@link IndexBuildTask} each; hands model and tasks to the
 * caller's {@link TaskRunner} (e.g. one Spark task per group, where the data is); and commits the
 * {@link WrittenSegment}s it gets back in one version. With one group, the segment is the one a
 * local build with the same spec (and seed) writes.
 */
public final class IndexBuild {
  private IndexBuild() {}

  /** Runs the tasks of a build wherever the caller chooses and returns their segments. */
  @FunctionalInterface
  public interface TaskRunner {
    /**
     * Runs every task with {@code model} ({@link IndexBuildTask#run}) and returns the segments, in
     * task order; a failure fails the build and nothing is committed.
     */
    List<WrittenSegment> run(IndexModel model, List<IndexBuildTask> tasks);
  }

  /**
   * Builds index {@code spec.nameFor(column)} over every fragment of {@code dataset}'s version and
   * commits it; returns the new version (the caller closes it).
   *
   * @throws InvalidInputException if {@code rowsPerSegment} is below 1, or for a column or spec the
   *     build refuses
   */
  public static Dataset create(
      Dataset dataset,
      String column,
      VectorIndexSpec spec,
      long rowsPerSegment,
      TaskRunner runner) {
    return VectorIndexOps.create(dataset, column, spec, writer(rowsPerSegment, runner));
  }

  /**
   * Brings index {@code name} up to date with the fragments appended since it was built: one delta
   * segment per group, encoded with its existing model (or, with {@code retrain}, a new model over
   * every fragment replacing all segments). Returns the version afterwards ({@code dataset} itself
   * when nothing was unindexed).
   */
  public static Dataset optimize(
      Dataset dataset, String name, boolean retrain, long rowsPerSegment, TaskRunner runner) {
    return VectorIndexOps.optimize(dataset, name, retrain, writer(rowsPerSegment, runner));
  }

  private static VectorIndexBuilder.SegmentWriter writer(long rowsPerSegment, TaskRunner runner) {
    FragmentGroups.checkRowsPerSegment(rowsPerSegment);
    return (dataset, column, spec, model, fragments) ->
        write(dataset, column, spec, model, fragments, rowsPerSegment, runner);
  }

  private static List<IndexMetadata> write(
      Dataset dataset,
      String column,
      VectorIndexSpec spec,
      TrainedModel model,
      List<DataFragment> fragments,
      long rowsPerSegment,
      TaskRunner runner) {
    List<IndexBuildTask> tasks = new ArrayList<>();
    for (FragmentGroups.Group g : FragmentGroups.of(fragments, rowsPerSegment)) {
      tasks.add(
          new IndexBuildTask(
              dataset.location(), dataset.version(), column, spec, g.fragments(), g.rows()));
    }
    if (tasks.isEmpty()) {
      return List.of();
    }
    List<WrittenSegment> written = runner.run(new IndexModel(model), List.copyOf(tasks));
    if (written.size() != tasks.size()) {
      throw new IllegalStateException(
          "The index build ran " + tasks.size() + " tasks but got " + written.size() + " segments");
    }
    List<IndexMetadata> out = new ArrayList<>(written.size());
    for (WrittenSegment s : written) {
      out.add(s.internal());
    }
    return out;
  }
}
