package dev.lancelot.spark;

import dev.lancelot.spark.write.LanceWriteBuilder;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.connector.catalog.StagedTable;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;

/**
 * The target of {@code CREATE TABLE AS SELECT} / {@code REPLACE TABLE AS SELECT} (save modes
 * errorifexists, ignore and overwrite of a new location): the write job commits exactly one version
 * — the dataset's first for a create, a replacing one for a replace — so there is nothing left to
 * do at staging commit, and an aborted job leaves no version behind.
 */
final class LanceStagedTable extends LanceTable implements StagedTable {
  private final boolean replace;
  private final Map<String, Integer> vectorColumns;
  private final boolean enableStableRowIds;
  private final java.util.Optional<String> dataStorageVersion;
  private final java.util.Set<String> blobColumns;

  /**
   * {@code vectorColumns}: array columns to write as Lance vectors, from the statement's table
   * properties; the write option {@code vector.columns} adds to them (and wins for a column both
   * name). {@code enableStableRowIds}: the table property {@code enable_stable_row_ids}, which the
   * write option of that name can also set. {@code dataStorageVersion}: the table property {@code
   * data_storage_version}; the write option of that name wins over it. {@code blobColumns}: binary
   * columns to write as Lance blob columns (table properties {@code '<column>.lance.encoding' =
   * 'blob'}), to which the write options of that form add.
   */
  LanceStagedTable(
      String location,
      Configuration conf,
      boolean replace,
      Map<String, Integer> vectorColumns,
      boolean enableStableRowIds,
      java.util.Optional<String> dataStorageVersion,
      java.util.Set<String> blobColumns) {
    super(
        location,
        0,
        new org.apache.arrow.vector.types.pojo.Schema(java.util.List.of()),
        Map.of("location", location),
        conf);
    this.replace = replace;
    this.vectorColumns = Map.copyOf(vectorColumns);
    this.enableStableRowIds = enableStableRowIds;
    this.dataStorageVersion = dataStorageVersion;
    this.blobColumns = java.util.Set.copyOf(blobColumns);
  }

  /**
   * No driver-side metrics: the write job's tasks report theirs. Declared here because Spark 4.2
   * gives both {@code StagedTable} and {@code TruncatableTable} (a parent of {@link LanceTable}'s
   * {@code SupportsDeleteV2}) a default of this method; a class inheriting two unrelated defaults
   * of one method fails with {@code AbstractMethodError} when Spark calls it after a CTAS. Not an
   * override on Spark 3.5, whose tables report no driver metrics (D53).
   */
  @SuppressWarnings("MissingOverride")
  public CustomTaskMetric[] reportDriverMetrics() {
    return new CustomTaskMetric[0];
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    LanceOptions options = LanceOptions.parse(withPath(info.options()));
    if (!vectorColumns.isEmpty()
        || enableStableRowIds
        || dataStorageVersion.isPresent()
        || !blobColumns.isEmpty()) {
      java.util.Set<String> blobs = new java.util.TreeSet<>(blobColumns);
      blobs.addAll(options.blobColumns());
      Map<String, Integer> dims = new HashMap<>(vectorColumns);
      dims.putAll(options.vectorColumns());
      options =
          new LanceOptions(
              options.path(),
              options.version(),
              options.batchSize(),
              options.maxRowsPerPartition(),
              options.maxRowsPerFile(),
              dims,
              options.tag(),
              options.branch(),
              options.enableStableRowIds() || enableStableRowIds,
              options.dataStorageVersion().or(() -> dataStorageVersion),
              blobs,
              options.targetBase(),
              options.streamingQueryId());
    }
    return new LanceWriteBuilder(this, info, options, true).staged(replace);
  }

  @Override
  public void commitStagedChanges() {
    // The batch write already committed the version atomically.
  }

  @Override
  public void abortStagedChanges() {
    // The batch write's abort already deleted the files its tasks wrote; no version was committed.
  }
}
