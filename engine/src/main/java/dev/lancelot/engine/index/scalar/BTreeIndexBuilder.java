package dev.lancelot.engine.index.scalar;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;

/**
 * Builds a BTree index in Lance 7's layout and commits it, so Lance and this engine both use it:
 *
 * <pre>{@code
 * Dataset v2 = BTreeIndexBuilder.build(dataset, BTreeBuildParams.of("tenant_id"));   // "tenant_id_idx"
 * }</pre>
 *
 * <p>The build scans the column with {@code _rowaddr} (deleted rows excluded), sorts NULLs first,
 * then values, equal values by row address, writes page_data.lance and page_lookup.lance under a
 * new {@code _indices/<uuid>/}, and commits one segment covering every fragment of the version.
 * Rows appended later are in fragments the segment does not cover. The whole column is held in
 * memory, so a build takes up to about 2^31 rows; {@link
 * dev.lancelot.engine.distributed.ScalarIndexBuild} writes one segment per group of fragments in
 * tasks instead. Progress is logged at INFO.
 */
public final class BTreeIndexBuilder {
  private BTreeIndexBuilder() {}

  /**
   * Builds and commits the index; returns the new version.
   *
   * @throws InvalidInputException when the column is missing or of a type a BTree cannot hold, or
   *     the name is taken and {@code replace} is not set
   */
  public static Dataset build(Dataset dataset, BTreeBuildParams params) {
    return ScalarIndexBuilder.build(dataset, ScalarBuildParams.of(params));
  }
}
