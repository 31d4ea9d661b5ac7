package dev.lancelot.spark.write;

import dev.lancelot.engine.FragmentMetadata;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.distributed.DistributedWrite;
import dev.lancelot.engine.distributed.FragmentWriter;
import dev.lancelot.engine.schema.LanceField;
import dev.lancelot.engine.schema.LanceSchema;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * One write task: converts rows to Arrow batches and streams them into data files. Nothing is
 * visible until the driver commits; {@link #abort()} deletes the task's files.
 */
final class LanceDataWriter implements DataWriter<InternalRow> {
  static final int BATCH_ROWS = 4096;
  private final BufferAllocator allocator = new RootAllocator();
  private final FragmentWriter files;
  private final RowToArrow rows;
  private long rowsWritten;

  LanceDataWriter(
      String location,
      Configuration conf,
      LanceSchema target,
      StructType sparkSchema,
      int maxRowsPerFile,
      String dataStorageVersion,
      String targetBase,
      String taskLabel) {
    List<Field> fields = new ArrayList<>();
    for (StructField f : sparkSchema.fields()) {
      LanceField lf =
          target
              .field(f.name())
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          "Column " + f.name() + " missing from the target schema"));
      fields.add(lf.toArrow());
    }
    this.rows = new RowToArrow(new Schema(fields), allocator, taskLabel);
    WriteOptions options =
        WriteOptions.of(WriteMode.APPEND)
            .withMaxRowsPerFile(maxRowsPerFile)
            .withDataStorageVersion(dataStorageVersion)
            .withTargetBase(targetBase);
    this.files = DistributedWrite.newFragmentWriter(location, conf, target, options);
  }

  @Override
  public void write(InternalRow row) {
    rows.append(row);
    rowsWritten++;
    if (rows.rows() >= BATCH_ROWS) {
      flush();
    }
  }

  private void flush() {
    if (rows.rows() > 0) {
      files.write(rows.finishBatch());
      rows.reset();
    }
  }

  @Override
  public WriterCommitMessage commit() {
    flush();
    List<FragmentMetadata> fragments = files.finish();
    return new LanceCommitMessage(fragments);
  }

  @Override
  public CustomTaskMetric[] currentMetricsValues() {
    return WriteMetrics.task(rowsWritten);
  }

  @Override
  public void abort() {
    files.abort();
  }

  @Override
  public void close() {
    try {
      rows.close();
      files.close();
    } finally {
      allocator.close();
    }
  }
}
