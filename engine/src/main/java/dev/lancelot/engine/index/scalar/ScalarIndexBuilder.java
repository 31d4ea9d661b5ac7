package dev.lancelot.engine.index.scalar;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.internal.index.scalar.btree.BTreeBuild;
import java.util.List;

/**
 * Builds a scalar index of any kind lancelot builds ({@link ScalarBuildParams#BUILT}: BTree,
 * bitmap, label list, zone map, bloom filter, n-gram) in lance-core 7's layout and commits it as
 * one segment covering every fragment of the version, so Lance and this engine both list and use
 * it:
 *
 * <pre>{@code
 * Dataset v2 = ScalarIndexBuilder.build(dataset, ScalarBuildParams.of(IndexType.BITMAP, "tenant_id"));
 * Dataset v3 = ScalarIndexBuilder.build(v2,
 *     ScalarBuildParams.of(IndexType.ZONEMAP, "ts").withName("ts_zones").withRowsPerZone(4096));
 * }</pre>
 *
 * <p>The build scans the column with its row addresses (deleted rows excluded; a bitmap on a
 * dataset with stable row ids stores row ids, as a BTree does) and holds it in memory, so a build
 * takes up to about 2^31 rows; {@link dev.lancelot.engine.distributed.ScalarIndexBuild} runs it in
 * tasks. Layouts: docs/scalar-indexes.md; decision D64.
 */
public final class ScalarIndexBuilder {
  private ScalarIndexBuilder() {}

  /**
   * Builds and commits the index; returns the new version.
   *
   * @throws InvalidInputException when the column is missing or of a type the kind cannot hold, or
   *     the name is taken and {@code replace} is not set
   */
  public static Dataset build(Dataset dataset, ScalarBuildParams params) {
    return BTreeBuild.build(
        dataset, params, fragments -> List.of(BTreeBuild.writeSegment(dataset, params, fragments)));
  }

  /** Whether indexes of {@code type} are built by this class (and optimized by appending). */
  public static boolean builds(IndexType type) {
    return ScalarBuildParams.BUILT.contains(type);
  }
}
