package dev.lancelot.engine.index.vector;

import dev.lancelot.engine.vector.VectorException;
import java.io.Serializable;

/**
 * The HNSW part of a {@link VectorIndexSpec} (IVF_HNSW_*), with Lance 7's defaults ({@link
 * #DEFAULTS}).
 *
 * @param m neighbours per node on upper levels (20; {@code 2m} on level 0)
 * @param efConstruction candidate list size while building (150)
 * @param maxLevel levels of the graph (7)
 */
public record HnswParams(int m, int efConstruction, int maxLevel) implements Serializable {
  public static final HnswParams DEFAULTS = new HnswParams(20, 150, 7);

  public HnswParams {
    if (m < 2) {
      throw new VectorException(
          "Cannot build HNSW with m="
              + m
              + ": m must be at least 2 (level"
              + " assignment divides by ln(m)). Use m between 8 and 64; Lance's default is 20.");
    }
    if (efConstruction < 1) {
      throw new VectorException(
          "Cannot build HNSW with ef_construction="
              + efConstruction
              + ": it must be at least 1. Use a value >= m; Lance's default is 150.");
    }
    if (maxLevel < 1 || maxLevel > 64) {
      throw new VectorException(
          "Cannot build HNSW with max_level="
              + maxLevel
              + ": it must be between 1 and 64. Lance's default is 7.");
    }
  }
}
