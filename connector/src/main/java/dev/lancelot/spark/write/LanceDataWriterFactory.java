package dev.lancelot.spark.write;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.lancelot.engine.format.proto.FileProtos;
import dev.lancelot.engine.schema.LanceSchema;
import dev.lancelot.spark.SerializableConfiguration;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.types.StructType;

/** Ships what a write task needs: location, Hadoop conf, target schema and sizes. */
final class LanceDataWriterFactory implements DataWriterFactory {
  private static final long serialVersionUID = 1L;
  private final String location;
  private final SerializableConfiguration conf;
  private final byte[] schema;
  private final StructType sparkSchema;
  private final int maxRowsPerFile;

  LanceDataWriterFactory(
      String location,
      SerializableConfiguration conf,
      byte[] schema,
      StructType sparkSchema,
      int maxRowsPerFile) {
    this.location = location;
    this.conf = conf;
    this.schema = schema;
    this.sparkSchema = sparkSchema;
    this.maxRowsPerFile = maxRowsPerFile;
  }

  @Override
  public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
    LanceSchema target;
    try {
      target = LanceSchema.fromProto(FileProtos.Schema.parseFrom(schema));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("Corrupt schema shipped to the write task", e);
    }
    return new LanceDataWriter(
        location,
        conf.get(),
        target,
        sparkSchema,
        maxRowsPerFile,
        "partition " + partitionId + " (task " + taskId + ")");
  }
}
