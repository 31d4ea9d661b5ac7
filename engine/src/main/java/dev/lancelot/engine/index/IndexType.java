package dev.lancelot.engine.index;

/** Index types, named as Lance names them. */
public enum IndexType {
  IVF_FLAT(true, true),
  IVF_PQ(true, true),
  IVF_SQ(true, true),
  IVF_HNSW_FLAT(true, true),
  IVF_HNSW_SQ(true, true),
  IVF_HNSW_PQ(true, true),
  BTREE(false, true),
  /**
   * A vector index of RaBitQ codes, as Lance writes it: searched (with Lance's distance estimates,
   * nprobes and refine_factor), built, optimized and remapped (D63, D70).
   */
  IVF_RQ(true, true),
  /**
   * Bitmap scalar index (equality and IN on low-cardinality columns): used by filtered scans and
   * prefilters, built ({@code ScalarIndexBuilder}, D64).
   */
  BITMAP(false, false),
  /**
   * Label-list scalar index ({@code array_has_any} / {@code array_has_all} on lists): used by
   * filtered scans, built (D59, D64).
   */
  LABEL_LIST(false, false),
  /**
   * N-gram scalar index: narrows {@code contains} and {@code LIKE} filters (D59, D64), built (D69).
   */
  NGRAM(false, false),
  /** Zone-map scalar index (min/max per zone of rows): skips zones in filtered scans, built. */
  ZONEMAP(false, false),
  /**
   * Bloom-filter scalar index (equality pruning per zone): skips zones in filtered scans, built.
   */
  BLOOM_FILTER(false, false),
  /** Inverted (full-text) index: searched by {@code index.text.FullTextSearch}; not built yet. */
  INVERTED(false, false),
  /** An index kind this project does not recognise; carried untouched. */
  OTHER(false, false);

  private final boolean vector;
  private final boolean supported;

  IndexType(boolean vector, boolean supported) {
    this.vector = vector;
    this.supported = supported;
  }

  public boolean isVector() {
    return vector;
  }

  /** Whether lancelot reads, builds, optimizes and remaps indexes of this type. */
  public boolean isSupported() {
    return supported;
  }

  public boolean isHnsw() {
    return this == IVF_HNSW_FLAT || this == IVF_HNSW_SQ || this == IVF_HNSW_PQ;
  }

  /** Parses a user-supplied type name (case-insensitive), e.g. "ivf_pq" or "BTREE". */
  public static IndexType parse(String name) {
    for (IndexType t : values()) {
      if (t.name().equalsIgnoreCase(name.trim())) {
        if (!t.supported) {
          String why =
              t == INVERTED || t == OTHER
                  ? "lancelot does not build it yet"
                  : "it is a scalar index kind, built as one (ScalarIndexBuilder, CLI"
                      + " create-scalar-index --type, CALL lance.system.create_scalar_index)";
          throw new dev.lancelot.engine.LancelotException(
              "Cannot create an index of type "
                  + t
                  + ": "
                  + why
                  + ". Use one of IVF_FLAT, IVF_PQ, IVF_SQ, IVF_RQ, IVF_HNSW_FLAT, IVF_HNSW_SQ, IVF_HNSW_PQ, BTREE.");
        }
        return t;
      }
    }
    throw new dev.lancelot.engine.LancelotException(
        "Cannot create an index of type \""
            + name
            + "\": unknown index type. Use one of IVF_FLAT, IVF_PQ, IVF_SQ, IVF_RQ, IVF_HNSW_FLAT, IVF_HNSW_SQ, IVF_HNSW_PQ, BTREE.");
  }
}
