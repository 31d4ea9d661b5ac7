package dev.lancelot.spark.write;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DeltaWriter;
import org.apache.spark.sql.connector.write.DeltaWriterFactory;

/**
 * Ships what a row-level task needs ({@link WriteTaskSetup}); the task opens its data writer on its
 * first new row.
 */
final class LanceDeltaWriterFactory implements DeltaWriterFactory {
  private static final long serialVersionUID = 1L;
  private final WriteTaskSetup setup;

  LanceDeltaWriterFactory(WriteTaskSetup setup) {
    this.setup = setup;
  }

  @Override
  public DeltaWriter<InternalRow> createWriter(int partitionId, long taskId) {
    return new LanceDeltaWriter(() -> setup.openWriter(partitionId, taskId));
  }
}
