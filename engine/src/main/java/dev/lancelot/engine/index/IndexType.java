package dev.lancelot.engine.index;

/** Index types, named as Lance names them. */
public enum IndexType {
  IVF_FLAT(true),
  IVF_PQ(true),
  IVF_SQ(true),
  IVF_HNSW_FLAT(true),
  IVF_HNSW_SQ(true),
  IVF_HNSW_PQ(true),
  BTREE(false),
  /**
   * An index kind this project does not read (e.g. full-text, bitmap, IVF_RQ); carried untouched.
   */
  OTHER(false);

  private final boolean vector;

  IndexType(boolean vector) {
    this.vector = vector;
  }

  public boolean isVector() {
    return vector;
  }

  public boolean isHnsw() {
    return this == IVF_HNSW_FLAT || this == IVF_HNSW_SQ || this == IVF_HNSW_PQ;
  }

  /** Parses a user-supplied type name (case-insensitive), e.g. "ivf_pq" or "BTREE". */
  public static IndexType parse(String name) {
    for (IndexType t : values()) {
      if (t != OTHER && t.name().equalsIgnoreCase(name.trim())) {
        return t;
      }
    }
    throw new dev.lancelot.engine.LancelotException(
        "Cannot create an index of type \""
            + name
            + "\": unknown index type. Use one of IVF_FLAT, IVF_PQ, IVF_SQ, IVF_HNSW_FLAT, IVF_HNSW_SQ, IVF_HNSW_PQ, BTREE.");
  }
}
