package dev.lancelot.spark.write;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;

/** Ships what an append task needs ({@link WriteTaskSetup}). */
final class LanceDataWriterFactory implements DataWriterFactory {
  private static final long serialVersionUID = 1L;
  private final WriteTaskSetup setup;

  LanceDataWriterFactory(WriteTaskSetup setup) {
    this.setup = setup;
  }

  @Override
  public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
    return setup.openWriter(partitionId, taskId);
  }
}
