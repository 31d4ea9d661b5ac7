package dev.lancelot.spark.write;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.streaming.StreamingDataWriterFactory;

/**
 * Ships what an append task needs ({@link WriteTaskSetup}), for a batch write and for each
 * micro-batch of a streaming write alike.
 */
final class LanceDataWriterFactory implements DataWriterFactory, StreamingDataWriterFactory {
  private static final long serialVersionUID = 1L;
  private final WriteTaskSetup setup;

  LanceDataWriterFactory(WriteTaskSetup setup) {
    this.setup = setup;
  }

  @Override
  public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
    return setup.openWriter(partitionId, taskId);
  }

  @Override
  public DataWriter<InternalRow> createWriter(int partitionId, long taskId, long epochId) {
    return setup.openWriter(partitionId, taskId);
  }
}
