package dev.lancelot.engine.query;

import dev.lancelot.engine.vector.DistanceMetric;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Every parameter of a vector search (SPEC Q), immutable and serializable. Build one with {@link
 * #builder(String)} or from a Lance-style parameter map with {@link #fromMap(Map)}. Defaults are
 * Lance 7's: {@code k = 10}, {@code minimum_nprobes = 1}, no maximum (all partitions), {@code ef =
 * k·rf + k·rf/2} for HNSW, no refine, {@code use_index = true}, postfilter ({@code prefilter =
 * false}), {@code fast_search = false}.
 *
 * <p>Parameter rules that need no schema are checked by {@link Builder#build()}; the dimension and
 * column type are checked against the dataset when the query is planned, before any data is read.
 */
public final class VectorQuery implements Serializable {
  private static final long serialVersionUID = 1L;
  public static final int DEFAULT_K = 10;

  private final String column;
  private final float[][] vectors;
  private final int k;
  private final DistanceMetric metric;
  private final int minimumNprobes;
  private final Integer maximumNprobes;
  private final Integer ef;
  private final Integer refineFactor;
  private final boolean useIndex;
  private final String filter;
  private final boolean prefilter;
  private final boolean fastSearch;
  private final boolean withRowId;
  private final List<String> columns;
  private final Float lowerBound;
  private final Float upperBound;

  private VectorQuery(Builder b) {
    this.column = b.column;
    this.vectors = b.vectors;
    this.k = b.k;
    this.metric = b.metric;
    this.minimumNprobes = b.minimumNprobes;
    this.maximumNprobes = b.maximumNprobes;
    this.ef = b.ef;
    this.refineFactor = b.refineFactor;
    this.useIndex = b.useIndex;
    this.filter = b.filter;
    this.prefilter = b.prefilter;
    this.fastSearch = b.fastSearch;
    this.withRowId = b.withRowId;
    this.columns = b.columns == null ? null : List.copyOf(b.columns);
    this.lowerBound = b.lowerBound;
    this.upperBound = b.upperBound;
  }

  public static Builder builder(String column) {
    return new Builder(column);
  }

  /** A builder holding this query's parameters, to derive a modified query. */
  public Builder toBuilder() {
    Builder b = new Builder(column);
    b.vectors = vectors;
    b.k = k;
    b.metric = metric;
    b.minimumNprobes = minimumNprobes;
    b.maximumNprobes = maximumNprobes;
    b.nprobesSet = false;
    b.minimumSet = true;
    b.ef = ef;
    b.refineFactor = refineFactor;
    b.useIndex = useIndex;
    b.filter = filter;
    b.prefilter = prefilter;
    b.fastSearch = fastSearch;
    b.withRowId = withRowId;
    b.columns = columns;
    b.lowerBound = lowerBound;
    b.upperBound = upperBound;
    return b;
  }

  /**
   * Parses Lance's {@code nearest} parameter map (as in Lance's Python API): {@code column}, {@code
   * q} (a vector or a list of vectors), {@code k}, {@code metric}, {@code nprobes}, {@code
   * minimum_nprobes}, {@code maximum_nprobes}, {@code ef}, {@code refine_factor}, {@code
   * use_index}, plus the scan-level {@code filter}, {@code prefilter}, {@code fast_search}, {@code
   * with_row_id}, {@code columns} and {@code distance_range} ([lower, upper]). Unknown keys are
   * refused.
   */
  public static VectorQuery fromMap(Map<String, ?> params) {
    return MapQueryParser.parse(params, true);
  }

  /**
   * Like {@link #fromMap}, for the parameters of a search whose query vectors come from elsewhere
   * (a DataFrame of queries): {@code q} must be absent, and the result has no vectors ({@link
   * #hasVectors()} is false).
   */
  public static VectorQuery parametersFromMap(Map<String, ?> params) {
    return MapQueryParser.parse(params, false);
  }

  /** False for a query built with {@link Builder#buildParameters()}: parameters without vectors. */
  public boolean hasVectors() {
    return vectors.length > 0;
  }

  public String column() {
    return column;
  }

  /** The query vectors (one for a single query). The arrays must not be modified. */
  public float[][] vectors() {
    return vectors;
  }

  public float[] vector() {
    return vectors[0];
  }

  public boolean isBatch() {
    return vectors.length > 1;
  }

  public int k() {
    return k;
  }

  public Optional<DistanceMetric> metric() {
    return Optional.ofNullable(metric);
  }

  public int minimumNprobes() {
    return minimumNprobes;
  }

  /** Empty means no upper bound: all partitions may be probed. */
  public OptionalInt maximumNprobes() {
    return maximumNprobes == null ? OptionalInt.empty() : OptionalInt.of(maximumNprobes);
  }

  public OptionalInt ef() {
    return ef == null ? OptionalInt.empty() : OptionalInt.of(ef);
  }

  public OptionalInt refineFactor() {
    return refineFactor == null ? OptionalInt.empty() : OptionalInt.of(refineFactor);
  }

  /** Candidates the ANN stage keeps: {@code k × refine_factor} (SPEC Q2). */
  public int candidateK() {
    return k * (refineFactor == null ? 1 : refineFactor);
  }

  /** HNSW's ef: the one given, else {@code candidateK + candidateK / 2} (SPEC Q5). */
  public int effectiveEf() {
    int ck = candidateK();
    return ef != null ? ef : ck + ck / 2;
  }

  public boolean useIndex() {
    return useIndex;
  }

  public Optional<String> filter() {
    return Optional.ofNullable(filter);
  }

  public boolean prefilter() {
    return prefilter;
  }

  public boolean fastSearch() {
    return fastSearch;
  }

  public boolean withRowId() {
    return withRowId;
  }

  /**
   * Result columns; absent means every column of the dataset, an empty list means none (only {@code
   * _distance}, and {@code _rowid} when asked).
   */
  public Optional<List<String>> columns() {
    return Optional.ofNullable(columns);
  }

  public Optional<Float> lowerBound() {
    return Optional.ofNullable(lowerBound);
  }

  public Optional<Float> upperBound() {
    return Optional.ofNullable(upperBound);
  }

  @Override
  public String toString() {
    StringBuilder sb =
        new StringBuilder("VectorQuery{column=")
            .append(column)
            .append(", vectors=")
            .append(vectors.length == 0 ? "none" : vectors.length + "x" + vectors[0].length)
            .append(", k=")
            .append(k);
    metric().ifPresent(m -> sb.append(", metric=").append(m.lanceName()));
    sb.append(", nprobes=")
        .append(minimumNprobes)
        .append("..")
        .append(maximumNprobes == null ? "all" : maximumNprobes.toString());
    ef().ifPresent(e -> sb.append(", ef=").append(e));
    refineFactor().ifPresent(r -> sb.append(", refine_factor=").append(r));
    if (!useIndex) {
      sb.append(", use_index=false");
    }
    filter()
        .ifPresent(
            f ->
                sb.append(", filter=")
                    .append(f)
                    .append(prefilter ? " (prefilter)" : " (postfilter)"));
    if (fastSearch) {
      sb.append(", fast_search");
    }
    return sb.append('}').toString();
  }

  /** Builder of {@link VectorQuery}; {@link #build()} validates (SPEC Q1). */
  public static final class Builder {
    private final String column;
    private float[][] vectors;
    private int k = DEFAULT_K;
    private DistanceMetric metric;
    private int minimumNprobes = 1;
    private Integer maximumNprobes;
    private boolean nprobesSet;
    private boolean minimumSet;
    private boolean maximumSet;
    private Integer ef;
    private Integer refineFactor;
    private boolean useIndex = true;
    private String filter;
    private boolean prefilter;
    private boolean fastSearch;
    private boolean withRowId;
    private List<String> columns;
    private Float lowerBound;
    private Float upperBound;

    private Builder(String column) {
      if (column == null || column.isBlank()) {
        throw new InvalidQueryException(
            "Cannot search: the vector column is missing. Name the column to search, "
                + "e.g. \"vector\".");
      }
      this.column = column;
    }

    public Builder vector(float... q) {
      this.vectors = new float[][] {q.clone()};
      return this;
    }

    /** Several query vectors searched in one call (SPEC Q13). */
    public Builder vectors(float[]... qs) {
      float[][] copy = new float[qs.length][];
      for (int i = 0; i < qs.length; i++) {
        copy[i] = qs[i] == null ? null : qs[i].clone();
      }
      this.vectors = copy;
      return this;
    }

    public Builder k(int k) {
      this.k = k;
      return this;
    }

    public Builder metric(DistanceMetric metric) {
      this.metric = metric;
      return this;
    }

    public Builder metric(String metric) {
      this.metric = metric == null ? null : DistanceMetric.parse(metric);
      return this;
    }

    /** Sets both {@code minimum_nprobes} and {@code maximum_nprobes}. */
    public Builder nprobes(int n) {
      this.nprobesSet = true;
      this.minimumNprobes = n;
      this.maximumNprobes = n;
      return this;
    }

    public Builder minimumNprobes(int n) {
      this.minimumSet = true;
      this.minimumNprobes = n;
      return this;
    }

    public Builder maximumNprobes(int n) {
      this.maximumSet = true;
      this.maximumNprobes = n;
      return this;
    }

    public Builder ef(int ef) {
      this.ef = ef;
      return this;
    }

    public Builder refineFactor(int factor) {
      this.refineFactor = factor;
      return this;
    }

    public Builder useIndex(boolean useIndex) {
      this.useIndex = useIndex;
      return this;
    }

    /** A SQL filter; null for none. */
    public Builder filter(String sql) {
      this.filter = sql == null || sql.isBlank() ? null : sql;
      return this;
    }

    public Builder prefilter(boolean prefilter) {
      this.prefilter = prefilter;
      return this;
    }

    public Builder fastSearch(boolean fastSearch) {
      this.fastSearch = fastSearch;
      return this;
    }

    public Builder withRowId(boolean withRowId) {
      this.withRowId = withRowId;
      return this;
    }

    public Builder columns(List<String> columns) {
      this.columns = columns == null ? null : new ArrayList<>(columns);
      return this;
    }

    public Builder columns(String... columns) {
      return columns(Arrays.asList(columns));
    }

    /** Keeps only results with {@code lower <= _distance < upper}; null for no bound. */
    public Builder distanceRange(Float lower, Float upper) {
      this.lowerBound = lower;
      this.upperBound = upper;
      return this;
    }

    public VectorQuery build() {
      if (vectors == null || vectors.length == 0) {
        throw new InvalidQueryException(
            "Cannot search column \""
                + column
                + "\": no query vector given. Pass the "
                + "query vector (q).");
      }
      return validated();
    }

    /**
     * The parameters alone, for searches whose query vectors come from elsewhere (a DataFrame of
     * queries); every rule of {@link #build()} but the vectors' is checked. Vectors must not be
     * set.
     */
    public VectorQuery buildParameters() {
      if (vectors != null && vectors.length > 0) {
        throw new InvalidQueryException(
            "Cannot search column \""
                + column
                + "\" with query vectors from a "
                + "DataFrame and a query vector (q) too: leave q unset.");
      }
      vectors = new float[0][];
      return validated();
    }

    private VectorQuery validated() {
      int dim = -1;
      for (int i = 0; i < vectors.length; i++) {
        float[] v = vectors[i];
        String which = vectors.length > 1 ? "query vector " + i : "the query vector";
        if (v == null || v.length == 0) {
          throw new InvalidQueryException(
              "Cannot search column \"" + column + "\": " + which + " is empty.");
        }
        if (dim >= 0 && v.length != dim) {
          throw new InvalidQueryException(
              "Cannot search column \""
                  + column
                  + "\": "
                  + which
                  + " has "
                  + v.length
                  + " dimensions but query vector 0 has "
                  + dim
                  + ". All query vectors must have the same dimension.");
        }
        dim = v.length;
        for (int d = 0; d < v.length; d++) {
          if (!Float.isFinite(v[d])) {
            throw new InvalidQueryException(
                "Cannot search column \""
                    + column
                    + "\": "
                    + which
                    + " has a non-finite "
                    + "value ("
                    + v[d]
                    + ") at position "
                    + d
                    + ". Query vectors must be numeric.");
          }
        }
      }
      if (k < 1) {
        throw new InvalidQueryException("Cannot search: k must be at least 1, got " + k + ".");
      }
      if (nprobesSet && (minimumSet || maximumSet)) {
        throw new InvalidQueryException(
            "Cannot search: nprobes cannot be combined with minimum_nprobes or "
                + "maximum_nprobes (nprobes sets both). Give either nprobes, or minimum_nprobes/maximum_nprobes.");
      }
      if (minimumNprobes < 1) {
        throw new InvalidQueryException(
            "Cannot search: minimum_nprobes (or nprobes) must be at least 1, got "
                + minimumNprobes
                + ".");
      }
      if (maximumNprobes != null && maximumNprobes < minimumNprobes) {
        throw new InvalidQueryException(
            "Cannot search: minimum_nprobes ("
                + minimumNprobes
                + ") must not exceed maximum_nprobes ("
                + maximumNprobes
                + ").");
      }
      if (refineFactor != null && refineFactor < 1) {
        throw new InvalidQueryException(
            "Cannot search: refine_factor must be at least 1, got " + refineFactor + ".");
      }
      if (ef != null && ef < 1) {
        throw new InvalidQueryException("Cannot search: ef must be at least 1, got " + ef + ".");
      }
      if (lowerBound != null && upperBound != null && !(lowerBound < upperBound)) {
        throw new InvalidQueryException(
            "Cannot search: the distance range's lower bound ("
                + lowerBound
                + ") must be below its upper bound ("
                + upperBound
                + ").");
      }
      return new VectorQuery(this);
    }
  }
}
