package dev.lancelot.spark.write;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.lancelot.engine.format.proto.FileProtos;
import dev.lancelot.engine.schema.LanceSchema;
import dev.lancelot.spark.SerializableConfiguration;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DeltaWriter;
import org.apache.spark.sql.connector.write.DeltaWriterFactory;
import org.apache.spark.sql.types.StructType;

/**
 * Ships what a row-level task needs: location, Hadoop conf, the dataset's schema, the new rows'
 * columns.
 */
final class LanceDeltaWriterFactory implements DeltaWriterFactory {
  private static final long serialVersionUID = 1L;
  private final String location;
  private final SerializableConfiguration conf;
  private final byte[] schema;
  private final StructType rowSchema;
  private final int maxRowsPerFile;

  LanceDeltaWriterFactory(
      String location,
      SerializableConfiguration conf,
      byte[] schema,
      StructType rowSchema,
      int maxRowsPerFile) {
    this.location = location;
    this.conf = conf;
    this.schema = schema;
    this.rowSchema = rowSchema;
    this.maxRowsPerFile = maxRowsPerFile;
  }

  @Override
  public DeltaWriter<InternalRow> createWriter(int partitionId, long taskId) {
    LanceSchema target;
    try {
      target = LanceSchema.fromProto(FileProtos.Schema.parseFrom(schema));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("Corrupt schema shipped to the row-level task", e);
    }
    return new LanceDeltaWriter(
        () ->
            new LanceDataWriter(
                location,
                conf.get(),
                target,
                rowSchema,
                maxRowsPerFile,
                "partition " + partitionId + " (task " + taskId + ")"));
  }
}
