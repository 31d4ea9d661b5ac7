package dev.lancelot.engine.index.vector;

import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.engine.vector.VectorException;

/**
 * What vector index to build, with Lance 7's defaults. Immutable; {@code with*} methods return a
 * new spec. It is built from the parameter records of each part of the index; parameters that do
 * not apply to the type are ignored (e.g. {@code m} for IVF_PQ).
 *
 * <ul>
 *   <li>{@link IvfParams}: partitions (0 = Lance's rule, {@code rows / target} clamped to [1, 4096]
 *       with target 4,096 rows (IVF_FLAT), 8,192 (IVF_PQ, IVF_SQ) or 1,048,576 (IVF_HNSW_*)), the
 *       training sample rate and k-means iterations;
 *   <li>{@link QuantizerParams}: PQ sub-vectors (16; must divide the dimension) and the code width
 *       {@code num_bits}: 8 for PQ and SQ (the only width implemented), 1 to 255 bits per dimension
 *       for IVF_RQ (default 1; its RaBitQ codes hold one bit per coordinate of the vector
 *       zero-padded to {@code dimension × num_bits} coordinates, as lance-core 7 codes them);
 *   <li>{@link HnswParams}: {@code m} (20), {@code efConstruction} (150), {@code maxLevel} (7);
 *   <li>{@code seed}: all randomness (sampling, k-means init, HNSW levels), so builds repeat;
 *   <li>{@code name}: index name, {@code null} = {@code <column>_idx} as Lance names it; {@code
 *       replace}: replace an index of that name (else building over it is an error).
 * </ul>
 */
public record VectorIndexSpec(
    IndexType type,
    DistanceMetric metric,
    IvfParams ivf,
    QuantizerParams quantizer,
    HnswParams hnsw,
    long seed,
    String name,
    boolean replace)
    implements java.io.Serializable {
  public static final int DEFAULT_NUM_SUB_VECTORS = QuantizerParams.DEFAULTS.numSubVectors();
  public static final int DEFAULT_SAMPLE_RATE = IvfParams.DEFAULTS.sampleRate();
  public static final int DEFAULT_MAX_ITERS = IvfParams.DEFAULTS.maxIters();
  public static final long DEFAULT_SEED = 42;
  public static final int MAX_PARTITIONS = 4096;

  /** IVF_RQ's default bits per dimension, as lance-core 7's. */
  public static final int DEFAULT_RQ_NUM_BITS = 1;

  /** The largest IVF_RQ {@code num_bits} (Lance stores it as a {@code u8}). */
  public static final int MAX_RQ_NUM_BITS = 255;

  private static final String BUILT_TYPES =
      "IVF_FLAT, IVF_PQ, IVF_SQ, IVF_RQ, IVF_HNSW_FLAT, IVF_HNSW_SQ, IVF_HNSW_PQ";

  public VectorIndexSpec {
    java.util.Objects.requireNonNull(ivf, "ivf");
    java.util.Objects.requireNonNull(quantizer, "quantizer");
    java.util.Objects.requireNonNull(hnsw, "hnsw");
    int numPartitions = ivf.numPartitions();
    int numSubVectors = quantizer.numSubVectors();
    int numBits = quantizer.numBits();
    int sampleRate = ivf.sampleRate();
    int maxIters = ivf.maxIters();
    if (type == null || !type.isVector()) {
      throw new VectorException(
          "Cannot create a vector index of type "
              + type
              + ": it is not a vector index type. "
              + "Use one of "
              + BUILT_TYPES
              + ".");
    }
    if (!type.isSupported()) {
      throw new VectorException(
          "Cannot create a "
              + type
              + " index: lancelot does not build it yet. "
              + "Use one of "
              + BUILT_TYPES
              + ".");
    }
    if (metric == null || metric == DistanceMetric.HAMMING) {
      throw new VectorException(
          "Cannot create a "
              + type
              + " index with metric "
              + (metric == null ? "null" : metric.lanceName())
              + ": float vector indexes support l2, cosine and dot. Use one of those.");
    }
    if (numPartitions < 0 || numPartitions > MAX_PARTITIONS) {
      throw new VectorException(
          "Cannot create a "
              + type
              + " index with num_partitions="
              + numPartitions
              + ": it must be between 1 and "
              + MAX_PARTITIONS
              + " (or 0 to derive it from the row count).");
    }
    if (numSubVectors < 1) {
      throw new VectorException(
          "Cannot create a "
              + type
              + " index with num_sub_vectors="
              + numSubVectors
              + ": it must be at least 1 (Lance's default is 16).");
    }
    if (type == IndexType.IVF_RQ) {
      if (numBits < 1 || numBits > MAX_RQ_NUM_BITS) {
        throw new VectorException(
            "Cannot create an IVF_RQ index with num_bits="
                + numBits
                + ": it must be between 1 and "
                + MAX_RQ_NUM_BITS
                + " bits per dimension (Lance's default is 1).");
      }
    } else if (numBits != 8) {
      throw new VectorException(
          "Cannot create a "
              + type
              + " index with num_bits="
              + numBits
              + ": only 8-bit codes are implemented. Use num_bits=8.");
    }
    // HNSW parameters are checked by HnswParams (messages name the parameter).
    if (sampleRate < 1) {
      throw new VectorException(
          "Cannot create a "
              + type
              + " index with sample_rate="
              + sampleRate
              + ": it must be positive (Lance's default is 256).");
    }
    if (maxIters < 1) {
      throw new VectorException(
          "Cannot create a "
              + type
              + " index with max_iters="
              + maxIters
              + ": it must be at least 1 (Lance's default is 50).");
    }
    if (name != null && name.isBlank()) {
      throw new VectorException(
          "Cannot create a "
              + type
              + " index with a blank name. Pass a name or leave it unset"
              + " (default <column>_idx).");
    }
  }

  /**
   * A spec with Lance 7's defaults for everything but type and metric ({@code num_bits} 1 for
   * IVF_RQ, else 8).
   */
  public static VectorIndexSpec of(IndexType type, DistanceMetric metric) {
    return new VectorIndexSpec(
        type,
        metric,
        IvfParams.DEFAULTS,
        type == IndexType.IVF_RQ
            ? QuantizerParams.DEFAULTS.withNumBits(DEFAULT_RQ_NUM_BITS)
            : QuantizerParams.DEFAULTS,
        HnswParams.DEFAULTS,
        DEFAULT_SEED,
        null,
        false);
  }

  /** Parses user input, e.g. {@code of("ivf_pq", "cosine")}. */
  public static VectorIndexSpec of(String type, String metric) {
    return of(IndexType.parse(type), DistanceMetric.parse(metric));
  }

  /** Keys {@link #fromMap} takes (Lance's parameter names). */
  public static final java.util.List<String> MAP_KEYS =
      java.util.List.of(
          "index_type",
          "metric",
          "num_partitions",
          "num_sub_vectors",
          "num_bits",
          "m",
          "ef_construction",
          "max_level",
          "sample_rate",
          "max_iterations",
          "seed",
          "name",
          "replace");

  /**
   * A spec from named parameters, as SQL and Python callers pass them: {@code index_type}
   * (required), {@code metric} (default l2) and the optional keys of {@link #MAP_KEYS}. Numbers may
   * be given as numbers or strings. Unknown keys, and keys that do not apply to the type (e.g.
   * {@code num_sub_vectors} for IVF_SQ), are errors naming the key.
   */
  public static VectorIndexSpec fromMap(java.util.Map<String, ?> params) {
    java.util.Map<String, Object> p = new java.util.LinkedHashMap<>();
    params.forEach((k, v) -> p.put(k.toLowerCase(java.util.Locale.ROOT), v));
    for (String key : p.keySet()) {
      if (!MAP_KEYS.contains(key)) {
        throw new VectorException(
            "Cannot build a vector index: unknown parameter \""
                + key
                + "\". Known: "
                + String.join(", ", MAP_KEYS)
                + ".");
      }
    }
    Object typeName = p.get("index_type");
    if (typeName == null) {
      throw new VectorException(
          "Cannot build a vector index: index_type is required (one of " + BUILT_TYPES + ").");
    }
    IndexType type = IndexType.parse(typeName.toString());
    if (!type.isVector()) {
      throw new VectorException(
          "Cannot build a vector index of type " + type + ": it is not a vector index type.");
    }
    boolean pq = type == IndexType.IVF_PQ || type == IndexType.IVF_HNSW_PQ;
    boolean sq = type == IndexType.IVF_SQ || type == IndexType.IVF_HNSW_SQ;
    applies(p, "num_sub_vectors", pq, type);
    applies(p, "num_bits", pq || sq || type == IndexType.IVF_RQ, type);
    for (String hnsw : new String[] {"m", "ef_construction", "max_level"}) {
      applies(p, hnsw, type.isHnsw(), type);
    }
    VectorIndexSpec spec =
        of(type, DistanceMetric.parse(String.valueOf(p.getOrDefault("metric", "l2"))));
    if (p.containsKey("num_partitions")) {
      spec = spec.withNumPartitions(intOf(p, "num_partitions"));
    }
    if (p.containsKey("num_sub_vectors")) {
      spec = spec.withNumSubVectors(intOf(p, "num_sub_vectors"));
    }
    if (p.containsKey("num_bits")) {
      spec = spec.withNumBits(intOf(p, "num_bits"));
    }
    if (type.isHnsw()) {
      spec =
          spec.withHnsw(
              new HnswParams(
                  p.containsKey("m") ? intOf(p, "m") : spec.m(),
                  p.containsKey("ef_construction")
                      ? intOf(p, "ef_construction")
                      : spec.efConstruction(),
                  p.containsKey("max_level") ? intOf(p, "max_level") : spec.maxLevel()));
    }
    if (p.containsKey("sample_rate")) {
      spec = spec.withSampleRate(intOf(p, "sample_rate"));
    }
    if (p.containsKey("max_iterations")) {
      spec = spec.withMaxIters(intOf(p, "max_iterations"));
    }
    if (p.containsKey("seed")) {
      spec = spec.withSeed(intOf(p, "seed"));
    }
    if (p.containsKey("name")) {
      spec = spec.withName(String.valueOf(p.get("name")));
    }
    if (p.containsKey("replace")) {
      Object r = p.get("replace");
      if (!(r instanceof Boolean)
          && !"true".equalsIgnoreCase(String.valueOf(r))
          && !"false".equalsIgnoreCase(String.valueOf(r))) {
        throw new VectorException(
            "Cannot build a vector index: replace must be true or false, got \"" + r + "\".");
      }
      spec = spec.withReplace(r instanceof Boolean b ? b : Boolean.parseBoolean(String.valueOf(r)));
    }
    return spec;
  }

  private static void applies(
      java.util.Map<String, Object> p, String key, boolean applies, IndexType type) {
    if (p.containsKey(key) && !applies) {
      throw new VectorException(
          "Cannot build a "
              + type
              + " index: parameter "
              + key
              + " does not apply to this"
              + " type; remove it or choose another index_type.");
    }
  }

  private static int intOf(java.util.Map<String, Object> p, String key) {
    Object v = p.get(key);
    try {
      if (v instanceof Number n) {
        if (n.doubleValue() != Math.rint(n.doubleValue())
            || Math.abs(n.doubleValue()) > Integer.MAX_VALUE) {
          throw new NumberFormatException();
        }
        return n.intValue();
      }
      return Integer.parseInt(String.valueOf(v).trim());
    } catch (NumberFormatException e) {
      throw new VectorException(
          "Cannot build a vector index: " + key + " must be an integer, got \"" + v + "\".");
    }
  }

  public VectorIndexSpec withIvf(IvfParams newIvf) {
    return new VectorIndexSpec(type, metric, newIvf, quantizer, hnsw, seed, name, replace);
  }

  public VectorIndexSpec withQuantizer(QuantizerParams newQuantizer) {
    return new VectorIndexSpec(type, metric, ivf, newQuantizer, hnsw, seed, name, replace);
  }

  public VectorIndexSpec withHnsw(HnswParams newHnsw) {
    return new VectorIndexSpec(type, metric, ivf, quantizer, newHnsw, seed, name, replace);
  }

  public VectorIndexSpec withHnsw(int newM, int newEfConstruction, int newMaxLevel) {
    return withHnsw(new HnswParams(newM, newEfConstruction, newMaxLevel));
  }

  public VectorIndexSpec withNumPartitions(int n) {
    return withIvf(ivf.withNumPartitions(n));
  }

  public VectorIndexSpec withSampleRate(int rate) {
    return withIvf(ivf.withSampleRate(rate));
  }

  public VectorIndexSpec withMaxIters(int iters) {
    return withIvf(ivf.withMaxIters(iters));
  }

  public VectorIndexSpec withNumSubVectors(int n) {
    return withQuantizer(quantizer.withNumSubVectors(n));
  }

  public VectorIndexSpec withNumBits(int bits) {
    return withQuantizer(quantizer.withNumBits(bits));
  }

  public VectorIndexSpec withSeed(long newSeed) {
    return new VectorIndexSpec(type, metric, ivf, quantizer, hnsw, newSeed, name, replace);
  }

  public VectorIndexSpec withName(String newName) {
    return new VectorIndexSpec(type, metric, ivf, quantizer, hnsw, seed, newName, replace);
  }

  public VectorIndexSpec withReplace(boolean newReplace) {
    return new VectorIndexSpec(type, metric, ivf, quantizer, hnsw, seed, name, newReplace);
  }

  /** IVF partitions asked for; 0 = Lance's rule ({@link #partitionsFor}). */
  public int numPartitions() {
    return ivf.numPartitions();
  }

  /** The training sample rate ({@link IvfParams#sampleRate()}). */
  public int sampleRate() {
    return ivf.sampleRate();
  }

  /** k-means iterations of IVF and PQ training. */
  public int maxIters() {
    return ivf.maxIters();
  }

  /** PQ sub-vectors. */
  public int numSubVectors() {
    return quantizer.numSubVectors();
  }

  /** PQ/SQ code width, or IVF_RQ's bits per dimension. */
  public int numBits() {
    return quantizer.numBits();
  }

  /** HNSW {@code m}. */
  public int m() {
    return hnsw.m();
  }

  /** HNSW {@code ef_construction}. */
  public int efConstruction() {
    return hnsw.efConstruction();
  }

  /** HNSW {@code max_level}. */
  public int maxLevel() {
    return hnsw.maxLevel();
  }

  /** The index name for {@code column}: {@link #name()} or {@code <column>_idx}. */
  public String nameFor(String column) {
    return name != null ? name : column + "_idx";
  }

  public boolean usesPq() {
    return type == IndexType.IVF_PQ || type == IndexType.IVF_HNSW_PQ;
  }

  public boolean usesSq() {
    return type == IndexType.IVF_SQ || type == IndexType.IVF_HNSW_SQ;
  }

  /** Whether the index stores RaBitQ codes (IVF_RQ). */
  public boolean usesRq() {
    return type == IndexType.IVF_RQ;
  }

  /** Rows per partition Lance aims at when it picks the partition count. */
  public int targetPartitionSize() {
    return switch (type) {
      case IVF_FLAT -> 4096;
      case IVF_HNSW_FLAT, IVF_HNSW_SQ, IVF_HNSW_PQ -> 1 << 20;
      default -> 8192;
    };
  }

  /**
   * The partition count for {@code rows} rows: {@link #numPartitions()}, or Lance's rule when 0.
   */
  public int partitionsFor(long rows) {
    if (ivf.numPartitions() > 0) {
      return ivf.numPartitions();
    }
    return (int) Math.max(1, Math.min(MAX_PARTITIONS, rows / targetPartitionSize()));
  }
}
