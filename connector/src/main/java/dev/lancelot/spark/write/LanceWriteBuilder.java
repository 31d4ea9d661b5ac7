package dev.lancelot.spark.write;

import dev.lancelot.engine.WriteMode;
import dev.lancelot.spark.LanceOptions;
import dev.lancelot.spark.LanceTable;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.SupportsTruncate;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;

/**
 * Chooses the engine write mode from how Spark asks (S2): plain writes append (creating the dataset
 * when absent), {@code truncate()} (save mode overwrite) overwrites, a staged create is a create
 * that fails if another writer created the dataset first, a staged replace overwrites.
 */
public final class LanceWriteBuilder implements WriteBuilder, SupportsTruncate {
  private final LanceTable table;
  private final LogicalWriteInfo info;
  private final LanceOptions options;
  private final boolean staged;
  private boolean overwrite;

  public LanceWriteBuilder(
      LanceTable table, LogicalWriteInfo info, LanceOptions options, boolean staged) {
    this.table = table;
    this.info = info;
    this.options = options;
    this.staged = staged;
  }

  /** For a staged table: true for a replace (overwrite), false for a create. */
  public LanceWriteBuilder staged(boolean replace) {
    this.overwrite = replace;
    return this;
  }

  @Override
  public WriteBuilder truncate() {
    this.overwrite = true;
    return this;
  }

  @Override
  public Write build() {
    WriteMode mode = overwrite ? WriteMode.OVERWRITE : staged ? WriteMode.CREATE : WriteMode.APPEND;
    return new Write() {
      private LanceBatchWrite batch;

      @Override
      public String description() {
        return "LanceWrite[" + table.location() + ", mode=" + mode + "]";
      }

      @Override
      public BatchWrite toBatch() {
        if (StreamIndexMaintenance.parse(info.options()).enabled()) {
          throw new dev.lancelot.engine.InvalidInputException(
              "Cannot use options "
                  + LanceOptions.OPTIMIZE_INDEX_EVERY_BATCHES
                  + " / "
                  + LanceOptions.OPTIMIZE_INDEX_UNINDEXED_ROWS
                  + " on a batch write to "
                  + table.location()
                  + ": they maintain indexes during a streaming write. After a batch write, run"
                  + " CALL lance.system.optimize_index(...).");
        }
        batch = new LanceBatchWrite(table, info, options, mode);
        return batch;
      }

      @Override
      public org.apache.spark.sql.connector.write.streaming.StreamingWrite toStreaming() {
        if (staged) {
          throw new UnsupportedOperationException(
              "Cannot write a stream to "
                  + table.location()
                  + " through CREATE TABLE AS SELECT or REPLACE TABLE: create the table first,"
                  + " then start the stream with toTable(...) or start(path).");
        }
        String queryId = options.streamingQueryId().orElse(info.queryId());
        LanceBatchWrite plan =
            new LanceBatchWrite(
                table, info, options, overwrite ? WriteMode.OVERWRITE : WriteMode.APPEND);
        return new LanceStreamingWrite(
            table, plan, queryId, overwrite, StreamIndexMaintenance.parse(info.options()));
      }

      @Override
      public org.apache.spark.sql.connector.metric.CustomMetric[] supportedCustomMetrics() {
        return WriteMetrics.supported();
      }

      // Write.reportDriverMetrics exists from Spark 4.0 on; the 3.5 line compiles this class too
      // (D53), so no @Override: there the committed files and bytes are not reported, and the
      // method is unused.
      @SuppressWarnings({"MissingOverride", "UnusedMethod", "EffectivelyPrivate"})
      public org.apache.spark.sql.connector.metric.CustomTaskMetric[] reportDriverMetrics() {
        long[] committed = batch == null ? new long[2] : batch.committedFilesAndBytes();
        return WriteMetrics.driver(committed[0], committed[1]);
      }
    };
  }
}
