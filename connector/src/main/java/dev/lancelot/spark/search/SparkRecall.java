package dev.lancelot.spark.search;

import java.io.Serializable;

/**
 * Recall of a vector search run by Spark against exact search (use_index=false) on the same dataset
 * version, also run by Spark (SPEC E1).
 *
 * @param version the dataset version both searches ran on
 * @param metric the metric of the exact search (the one the search ranked by)
 * @param queries query vectors (1, or the batch size)
 * @param meanRows rows the search returned per query vector
 * @param recall recall@k averaged over the query vectors
 * @param searchMillis wall time of the search job
 * @param exactMillis wall time of the exact search job
 */
public record SparkRecall(
    long version,
    String metric,
    int queries,
    double meanRows,
    double recall,
    double searchMillis,
    double exactMillis)
    implements Serializable {
  @Override
  public String toString() {
    return String.format(
        "recall@k %.4f against exact %s search over %d quer%s (%.2f rows each; search %.1f ms, "
            + "exact %.1f ms) on version %d",
        recall,
        metric,
        queries,
        queries == 1 ? "y" : "ies",
        meanRows,
        searchMillis,
        exactMillis,
        version);
  }
}
