package dev.lancelot.engine.internal.index.vector.hnsw;

import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.vector.VectorException;

/**
 * HNSW build parameters, defaults as Lance's {@code HnswBuildParams}: {@code m = 20} neighbours per
 * node on upper levels ({@code 2m} on level 0), {@code ef_construction = 150}, {@code max_level =
 * 7} levels. {@code seed} drives level assignment, so builds are reproducible (Lance's are not).
 */
public record HnswBuildParams(int m, int efConstruction, int maxLevel, long seed)
    implements java.io.Serializable {
  public static final int DEFAULT_M = 20;
  public static final int DEFAULT_EF_CONSTRUCTION = 150;
  public static final int DEFAULT_MAX_LEVEL = 7;

  /** The HNSW parameters of an index spec. */
  public static HnswBuildParams of(VectorIndexSpec spec) {
    return new HnswBuildParams(spec.m(), spec.efConstruction(), spec.maxLevel(), spec.seed());
  }

  public HnswBuildParams {
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

  public static HnswBuildParams defaults(long seed) {
    return new HnswBuildParams(DEFAULT_M, DEFAULT_EF_CONSTRUCTION, DEFAULT_MAX_LEVEL, seed);
  }

  public HnswBuildParams withSeed(long newSeed) {
    return new HnswBuildParams(m, efConstruction, maxLevel, newSeed);
  }

  /** Maximum neighbours kept on {@code level}: {@code 2m} on level 0, {@code m} above. */
  public int maxNeighbors(int level) {
    return level == 0 ? 2 * m : m;
  }
}
