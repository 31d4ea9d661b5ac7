package dev.lancelot.spark.recall;

import java.util.List;
import java.util.Objects;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * What {@link DistributedRecall#run} evaluates: a dataset's vector column, a set of query vectors,
 * the values of k, a grid of search settings and the filters of the prefilter scenarios, and where
 * the outputs and the ground truth go. Immutable; built with {@link #builder(String)}. Lives on the
 * driver only (it may hold a DataFrame).
 *
 * @param dataset location of the Lance dataset searched (any Hadoop file system URI or a local
 *     path)
 * @param version the dataset version (0: the latest when the run starts)
 * @param column the vector column searched
 * @param queries the query vectors as a DataFrame (null: read them from {@code queriesLocation})
 * @param queriesLocation a Lance dataset or an {@code .fvecs} file of query vectors (null with
 *     {@code queries})
 * @param queryColumn the column of the query vectors (array of float or double); null: {@code
 *     column}
 * @param ks the values of k, each evaluated on its own
 * @param grid the settings, e.g. {@code "nprobes=1,4,16;refine_factor=1,4"}; null or blank: one
 *     setting of defaults
 * @param filter the filter of the prefilter scenario (null: not measured)
 * @param selectiveFilter the filter of the highly selective scenario (null: not measured)
 * @param out directory of the outputs (null: none written, the rows are only returned)
 * @param truth directory of stored ground truths (null: {@code <out>/truth}; with no {@code out},
 *     kept in memory)
 * @param limitQueries the first n query vectors only (0: all)
 */
public record RecallSpec(
    String dataset,
    long version,
    String column,
    Dataset<Row> queries,
    String queriesLocation,
    String queryColumn,
    List<Integer> ks,
    String grid,
    String filter,
    String selectiveFilter,
    String out,
    String truth,
    int limitQueries) {

  public RecallSpec {
    Objects.requireNonNull(dataset, "dataset");
    Objects.requireNonNull(column, "column");
    ks = List.copyOf(ks);
  }

  /** The column holding the query vectors. */
  public String effectiveQueryColumn() {
    return queryColumn == null ? column : queryColumn;
  }

  /** The directory of stored ground truths, or null when they are kept in memory only. */
  public String truthDirectory() {
    if (truth != null) {
      return truth;
    }
    return out == null ? null : out.replaceAll("/+$", "") + "/truth";
  }

  public static Builder builder(String dataset) {
    return new Builder(dataset);
  }

  /**
   * Builds a {@link RecallSpec}; column {@code vector}, k 10, one setting of defaults unless set.
   */
  public static final class Builder {
    private final String dataset;
    private long version;
    private String column = "vector";
    private Dataset<Row> queries;
    private String queriesLocation;
    private String queryColumn;
    private List<Integer> ks = List.of(10);
    private String grid;
    private String filter;
    private String selectiveFilter;
    private String out;
    private String truth;
    private int limitQueries;

    private Builder(String dataset) {
      this.dataset = dataset;
    }

    public Builder version(long version) {
      this.version = version;
      return this;
    }

    public Builder column(String column) {
      this.column = column;
      return this;
    }

    /**
     * Query vectors from column {@code queryColumn} (null: the searched column's name) of a
     * DataFrame.
     */
    public Builder queries(Dataset<Row> queries, String queryColumn) {
      this.queries = queries;
      this.queriesLocation = null;
      this.queryColumn = queryColumn;
      return this;
    }

    /**
     * Query vectors from a Lance dataset's column {@code queryColumn} (null: the searched column's
     * name) or an {@code .fvecs} file.
     */
    public Builder queriesAt(String location, String queryColumn) {
      this.queriesLocation = location;
      this.queries = null;
      this.queryColumn = queryColumn;
      return this;
    }

    public Builder k(Integer... ks) {
      this.ks = List.of(ks);
      return this;
    }

    public Builder ks(List<Integer> ks) {
      this.ks = ks;
      return this;
    }

    public Builder grid(String grid) {
      this.grid = grid;
      return this;
    }

    public Builder filter(String filter) {
      this.filter = filter;
      return this;
    }

    public Builder selectiveFilter(String selectiveFilter) {
      this.selectiveFilter = selectiveFilter;
      return this;
    }

    public Builder out(String out) {
      this.out = out;
      return this;
    }

    public Builder truth(String truth) {
      this.truth = truth;
      return this;
    }

    public Builder limitQueries(int limitQueries) {
      this.limitQueries = limitQueries;
      return this;
    }

    public RecallSpec build() {
      return new RecallSpec(
          dataset,
          version,
          column,
          queries,
          queriesLocation,
          queryColumn,
          ks,
          grid,
          filter,
          selectiveFilter,
          out,
          truth,
          limitQueries);
    }
  }
}
