package dev.lancelot.spark.write;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.DatasetTypes;
import dev.lancelot.engine.FragmentMetadata;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.distributed.DistributedWrite;
import dev.lancelot.engine.schema.LanceSchema;
import dev.lancelot.spark.LanceOptions;
import dev.lancelot.spark.LanceTable;
import dev.lancelot.spark.SerializableConfiguration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.connector.write.DeltaBatchWrite;
import org.apache.spark.sql.connector.write.DeltaWrite;
import org.apache.spark.sql.connector.write.DeltaWriterFactory;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.RowLevelOperation.Command;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.StructType;
import org.roaringbitmap.RoaringBitmap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write half of a row-level operation: tasks write the new rows as uncommitted fragments and
 * collect the deleted row addresses; the driver commits both as one version planned against the
 * version the operation read ({@link Dataset#commitRowChanges}). A concurrent commit touching the
 * same fragments fails the statement with a conflict error and the new fragments are deleted.
 */
final class LanceDeltaWrite implements DeltaWrite, DeltaBatchWrite {
  private static final Logger LOG = LoggerFactory.getLogger(LanceDeltaWrite.class);
  private final LanceTable table;
  private final StructType rowSchema;
  private final Command command;
  private final int maxRowsPerFile;
  private final LanceSchema schema;

  LanceDeltaWrite(LanceTable table, LogicalWriteInfo info, Command command) {
    this.table = table;
    this.rowSchema = info.schema() == null ? new StructType() : info.schema();
    this.command = command;
    this.maxRowsPerFile = LanceOptions.parse(table.withPathOption(info.options())).maxRowsPerFile();
    try (Dataset ds = table.openDataset()) {
      ds.checkWritable(); // before any task writes a file
      this.schema = ds.lanceSchema();
    }
    // Refused here, before any task runs; a DELETE writes no rows and is never refused.
    DatasetTypes.checkWritable(table.location(), schema, List.of(rowSchema.fieldNames()));
  }

  @Override
  public String description() {
    return command + " " + table.name();
  }

  /** Rows the tasks wrote (new rows: inserted ones and new versions of updated ones). */
  @Override
  public org.apache.spark.sql.connector.metric.CustomMetric[] supportedCustomMetrics() {
    return WriteMetrics.supported();
  }

  @Override
  public DeltaBatchWrite toBatch() {
    return this;
  }

  @Override
  public DeltaWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
    return new LanceDeltaWriterFactory(
        new WriteTaskSetup(
            table.location(),
            new SerializableConfiguration(table.hadoopConf()),
            schema,
            rowSchema,
            maxRowsPerFile));
  }

  @Override
  public boolean useCommitCoordinator() {
    return true;
  }

  @Override
  public void commit(WriterCommitMessage[] messages) {
    List<FragmentMetadata> fragments = new ArrayList<>();
    Map<Long, RoaringBitmap> deletes = new HashMap<>();
    for (WriterCommitMessage m : messages) {
      if (m instanceof LanceDeltaCommitMessage dm) {
        fragments.addAll(dm.fragments());
        dm.deletes()
            .forEach(
                (fragment, rows) ->
                    deletes.merge(fragment, rows, (a, b) -> RoaringBitmap.or(a, b)));
      }
    }
    long deleted = deletes.values().stream().mapToLong(RoaringBitmap::getLongCardinality).sum();
    long written = fragments.stream().mapToLong(FragmentMetadata::physicalRows).sum();
    try (Dataset read = table.openDataset()) {
      Dataset committed = read.commitRowChanges(deletes, fragments); // shares read's storage
      LOG.info(
          "{}: deleted {} rows, wrote {} rows in {} fragments; version {} read, version {} committed",
          description(),
          deleted,
          written,
          fragments.size(),
          read.version(),
          committed.version());
    } catch (RuntimeException e) {
      DistributedWrite.abort(table.location(), table.hadoopConf(), fragments);
      if (e instanceof LancelotException) {
        throw e;
      }
      throw new LancelotException("Cannot commit " + description() + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void abort(WriterCommitMessage[] messages) {
    List<FragmentMetadata> fragments = new ArrayList<>();
    for (WriterCommitMessage m : messages) {
      if (m instanceof LanceDeltaCommitMessage dm) {
        fragments.addAll(dm.fragments());
      }
    }
    LOG.warn("{} aborted: deleting {} uncommitted fragments", description(), fragments.size());
    DistributedWrite.abort(table.location(), table.hadoopConf(), fragments);
  }
}
