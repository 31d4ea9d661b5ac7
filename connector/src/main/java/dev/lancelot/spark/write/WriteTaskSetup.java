package dev.lancelot.spark.write;

import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.distributed.DistributedWrite;
import dev.lancelot.engine.schema.LanceSchema;
import dev.lancelot.spark.SerializableConfiguration;
import java.io.Serializable;
import org.apache.spark.sql.types.StructType;

/**
 * What every write task needs, shipped once per job by both writer factories (appends and row-level
 * operations): the location, the Hadoop configuration, the dataset's schema (the columns' own types
 * the rows are written in), the Spark schema of the rows, the file size and file format version.
 */
final class WriteTaskSetup implements Serializable {
  private static final long serialVersionUID = 1L;
  private final String location;
  private final SerializableConfiguration conf;
  private final byte[] schema;
  private final StructType rowSchema;
  private final int maxRowsPerFile;
  private final String dataStorageVersion;
  private final String targetBase;

  WriteTaskSetup(
      String location,
      SerializableConfiguration conf,
      LanceSchema schema,
      StructType rowSchema,
      int maxRowsPerFile) {
    this(location, conf, schema, rowSchema, maxRowsPerFile, null);
  }

  /**
   * {@code dataStorageVersion}: the file format version the coordinator resolved for the write
   * ({@link dev.lancelot.engine.WriteOptions#resolvedFor}); {@code null} leaves each task to use
   * the dataset's own.
   */
  WriteTaskSetup(
      String location,
      SerializableConfiguration conf,
      LanceSchema schema,
      StructType rowSchema,
      int maxRowsPerFile,
      String dataStorageVersion) {
    this(location, conf, schema, rowSchema, maxRowsPerFile, dataStorageVersion, null);
  }

  /**
   * {@code targetBase}: the base (name or path) the coordinator checked that new data files go to
   * (option {@code target_base}); {@code null} for the dataset root.
   */
  WriteTaskSetup(
      String location,
      SerializableConfiguration conf,
      LanceSchema schema,
      StructType rowSchema,
      int maxRowsPerFile,
      String dataStorageVersion,
      String targetBase) {
    this.dataStorageVersion = dataStorageVersion;
    this.targetBase = targetBase;
    this.location = location;
    this.conf = conf;
    this.schema = DistributedWrite.schemaToBytes(schema);
    this.rowSchema = rowSchema;
    this.maxRowsPerFile = maxRowsPerFile;
  }

  /** Opens the data writer of one task attempt. */
  LanceDataWriter openWriter(int partitionId, long taskId) {
    LanceSchema target;
    try {
      target = DistributedWrite.schemaFromBytes(schema);
    } catch (InvalidInputException e) {
      throw new IllegalStateException("Corrupt schema shipped to write task " + taskId, e);
    }
    return new LanceDataWriter(
        location,
        conf.get(),
        target,
        rowSchema,
        maxRowsPerFile,
        dataStorageVersion,
        targetBase,
        "partition " + partitionId + " (task " + taskId + ")");
  }
}
