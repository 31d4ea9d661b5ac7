package dev.lancelot.engine.index.vector;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.internal.index.vector.build.VectorIndexBuilder;
import dev.lancelot.engine.internal.index.vector.build.VectorIndexOps;

/**
 * Vector index management on a dataset version, writing Lance 7's layout so Lance uses these
 * indexes too. Each call commits one new version (a CreateIndex transaction) and returns it.
 *
 * <pre>{@code
 * Dataset v2 = VectorIndexes.create(ds, "vector",
 *     VectorIndexSpec.of(IndexType.IVF_PQ, DistanceMetric.L2).withNumPartitions(256).withNumSubVectors(16));
 * Dataset v4 = VectorIndexes.optimize(v3, "vector_idx", false);   // after an append: delta segment
 * VectorIndexDescription d = VectorIndexes.describe(v4, "vector_idx");
 * }</pre>
 */
public final class VectorIndexes {
  private VectorIndexes() {}

  /**
   * Builds an index over every fragment of {@code dataset} (deleted rows left out) and commits it.
   * An index of the same name is an error unless {@code spec.replace()}, which replaces all its
   * segments in the same commit.
   */
  public static Dataset create(Dataset dataset, String column, VectorIndexSpec spec) {
    return VectorIndexOps.create(dataset, column, spec, VectorIndexBuilder.LOCAL_SEGMENTS);
  }

  /**
   * Brings index {@code name} up to date with fragments appended since it was built. Without {@code
   * retrain}, adds delta segments (same name, new uuid) over the unindexed fragments, encoded with
   * the index's existing centroids and codebook; with {@code retrain}, trains a new model on all
   * current fragments and replaces every segment. Returns {@code dataset} unchanged when nothing is
   * unindexed and no retrain is asked.
   */
  public static Dataset optimize(Dataset dataset, String name, boolean retrain) {
    return VectorIndexOps.optimize(dataset, name, retrain, VectorIndexBuilder.LOCAL_SEGMENTS);
  }

  /** Removes every segment of index {@code name} (the files stay until cleanup, as Lance does). */
  public static Dataset drop(Dataset dataset, String name) {
    return VectorIndexOps.drop(dataset, name);
  }

  /** Type, metric, partitions, segments and coverage of index {@code name} in this version. */
  public static VectorIndexDescription describe(Dataset dataset, String name) {
    return VectorIndexOps.describe(dataset, name);
  }
}
