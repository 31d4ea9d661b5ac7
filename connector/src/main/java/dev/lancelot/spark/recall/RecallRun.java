package dev.lancelot.spark.recall;

import java.util.List;

/**
 * What {@link DistributedRecall#run} measured.
 *
 * @param location the qualified location of the dataset
 * @param version the dataset version every search ran on
 * @param queries the number of query vectors
 * @param rows the report, in order: for each k, each scenario, each setting
 * @param truthsReused ground truths read from earlier runs (their locations)
 * @param truthsComputed ground truths computed by this run (their locations, or keys when kept in
 *     memory)
 * @param truthMillis wall time spent computing or opening ground truths
 * @param millis wall time of the whole run, outputs included
 */
public record RecallRun(
    String location,
    long version,
    long queries,
    List<RecallResult> rows,
    List<String> truthsReused,
    List<String> truthsComputed,
    double truthMillis,
    double millis) {
  public RecallRun {
    rows = List.copyOf(rows);
    truthsReused = List.copyOf(truthsReused);
    truthsComputed = List.copyOf(truthsComputed);
  }
}
