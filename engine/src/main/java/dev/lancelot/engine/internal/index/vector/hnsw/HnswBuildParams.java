package dev.lancelot.engine.internal.index.vector.hnsw;

import dev.lancelot.engine.index.vector.HnswParams;
import dev.lancelot.engine.index.vector.VectorIndexSpec;

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
    HnswParams h = spec.hnsw();
    return new HnswBuildParams(h.m(), h.efConstruction(), h.maxLevel(), spec.seed());
  }

  public HnswBuildParams {
    new HnswParams(m, efConstruction, maxLevel); // checks each, naming it
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
