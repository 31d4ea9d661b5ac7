package dev.lancelot.spark.write;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.DatasetTypes;
import dev.lancelot.engine.FragmentMetadata;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.SchemaMismatchException;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.distributed.DistributedWrite;
import dev.lancelot.engine.schema.LanceField;
import dev.lancelot.engine.schema.LanceSchema;
import dev.lancelot.spark.LanceOptions;
import dev.lancelot.spark.LanceTable;
import dev.lancelot.spark.SerializableConfiguration;
import dev.lancelot.spark.SparkTypes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A distributed write (S2): tasks write fragment files in parallel, the driver commits them all as
 * one version (F4); an aborted job deletes what its tasks wrote.
 */
final class LanceBatchWrite implements BatchWrite {
  private long committedFiles;
  private long committedBytes;
  private static final Logger LOG = LoggerFactory.getLogger(LanceBatchWrite.class);
  private final LanceTable table;
  private final LanceOptions options;
  private final WriteMode mode;
  private final StructType sparkSchema;
  private final LanceSchema schema;
  private final long readVersion;
  private final dev.lancelot.engine.WriteOptions writeOptions;

  LanceBatchWrite(LanceTable table, LogicalWriteInfo info, LanceOptions options, WriteMode mode) {
    this.table = table;
    this.options = options;
    this.mode = mode;
    this.sparkSchema = info.schema();
    Optional<Dataset> existing = openLatest();
    try {
      this.readVersion = existing.map(Dataset::version).orElse(0L);
      // the file format version of every task's files, decided once (appends keep the dataset's)
      this.writeOptions =
          dev.lancelot.engine.WriteOptions.of(mode)
              .enableStableRowIds(options.enableStableRowIds())
              .withDataStorageVersion(options.dataStorageVersion().orElse(null))
              .withTargetBase(options.targetBase().orElse(null))
              .resolvedFor(existing.map(Dataset::dataStorageVersion).orElse(null));
      options.targetBase().ifPresent(b -> checkTargetBase(table.location(), existing, b));
      if (mode == WriteMode.APPEND && existing.isPresent()) {
        existing.get().checkAppendable(); // before any task writes a file
        this.schema = existing.get().lanceSchema();
        checkAppendable(existing.get().location(), schema, sparkSchema);
        DatasetTypes.checkWritable(
            existing.get().location(), schema, List.of(sparkSchema.fieldNames()));
      } else {
        Map<String, Integer> dims = new HashMap<>(options.vectorColumns());
        this.schema =
            LanceSchema.fromArrow(SparkTypes.toArrow(sparkSchema, dims, options.blobColumns()))
                .withBlobEncodingFor(writeOptions.dataStorageVersion());
      }
    } finally {
      existing.ifPresent(Dataset::close);
    }
  }

  /**
   * Refuses option {@code target_base} before any task runs unless the dataset registers that base
   * (by name, path or location); each task resolves it again (decision D62).
   */
  static void checkTargetBase(String location, Optional<Dataset> existing, String wanted) {
    List<dev.lancelot.engine.BasePathInfo> bases =
        existing.map(Dataset::basePaths).orElse(List.of());
    for (dev.lancelot.engine.BasePathInfo b : bases) {
      if (b.matches(wanted)) {
        return;
      }
    }
    throw new dev.lancelot.engine.InvalidInputException(
        "Cannot write to base \""
            + wanted
            + "\" of "
            + location
            + " (option target_base): "
            + (existing.isEmpty()
                ? "the dataset does not exist yet"
                : bases.isEmpty()
                    ? "the dataset registers no base paths"
                    : "the dataset's bases are "
                        + bases.stream().map(b -> b.name().orElse("") + "=" + b.path()).toList())
            + ". Name a base the dataset registers, or write without target_base.");
  }

  private Optional<Dataset> openLatest() {
    if (!Dataset.exists(table.location(), table.hadoopConf())) {
      return Optional.empty();
    }
    return Optional.of(
        Dataset.open(table.location(), OpenOptions.defaults().withHadoopConf(table.hadoopConf())));
  }

  /** Appends keep the dataset's schema: every Spark column must exist with an equivalent type. */
  static void checkAppendable(String location, LanceSchema schema, StructType data) {
    List<String> problems = new ArrayList<>();
    for (StructField f : data.fields()) {
      Optional<LanceField> target = schema.field(f.name());
      if (target.isEmpty()) {
        problems.add("column \"" + f.name() + "\" is not in the dataset");
        continue;
      }
      DataType expected = SparkTypes.dataType(target.get().toArrow());
      if (!sameIgnoringNullability(expected, f.dataType())) {
        problems.add(
            "column \""
                + f.name()
                + "\" is "
                + f.dataType().simpleString()
                + " but the dataset has "
                + expected.simpleString());
      }
    }
    for (LanceField f : schema.fields()) {
      if (!List.of(data.fieldNames()).contains(f.name())) {
        problems.add("column \"" + f.name() + "\" is missing");
      }
    }
    if (!problems.isEmpty()) {
      throw new SchemaMismatchException(
          "Cannot append to "
              + location
              + ": "
              + String.join("; ", problems)
              + ". Select and cast the DataFrame's columns to the dataset's schema, or use mode(\"overwrite\").");
    }
  }

  private static boolean sameIgnoringNullability(DataType a, DataType b) {
    return a.asNullable().equals(b.asNullable());
  }

  @Override
  public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
    return new LanceDataWriterFactory(taskSetup());
  }

  /** What every task of this write needs (also each micro-batch's of a streaming write). */
  WriteTaskSetup taskSetup() {
    return new WriteTaskSetup(
        table.location(),
        new SerializableConfiguration(table.hadoopConf()),
        schema,
        sparkSchema,
        options.maxRowsPerFile(),
        writeOptions.dataStorageVersion(),
        writeOptions.targetBase());
  }

  /** The schema the tasks write (the dataset's on an append). */
  LanceSchema schema() {
    return schema;
  }

  /** The options of the commit, the file format version resolved. */
  dev.lancelot.engine.WriteOptions writeOptions() {
    return writeOptions;
  }

  /**
   * Spark's commit coordinator lets one attempt per task commit: a losing speculative attempt (or
   * one of a lost executor that comes back) is denied and aborted, which deletes its files, so no
   * data file is left behind unreferenced.
   */
  /** Data files and their bytes in the committed version (driver metrics of the write). */
  long[] committedFilesAndBytes() {
    return new long[] {committedFiles, committedBytes};
  }

  @Override
  public boolean useCommitCoordinator() {
    return true;
  }

  @Override
  public void commit(WriterCommitMessage[] messages) {
    List<FragmentMetadata> fragments = fragmentsOf(messages);
    long rows = fragments.stream().mapToLong(FragmentMetadata::physicalRows).sum();
    try (Dataset committed =
        DistributedWrite.commit(
            table.location(), table.hadoopConf(), schema, fragments, writeOptions, readVersion)) {
      LOG.info(
          "Committed {} rows in {} fragments to {} as version {} ({})",
          rows,
          fragments.size(),
          table.location(),
          committed.version(),
          mode);
      for (FragmentMetadata f : fragments) {
        committedFiles += f.dataFiles().size();
        committedBytes += f.dataFileBytes();
      }
    } catch (LancelotException e) {
      DistributedWrite.abort(table.location(), table.hadoopConf(), fragments);
      throw e;
    }
  }

  @Override
  public void abort(WriterCommitMessage[] messages) {
    List<FragmentMetadata> fragments = fragmentsOf(messages);
    LOG.warn(
        "Write job to {} aborted: deleting {} uncommitted fragments",
        table.location(),
        fragments.size());
    DistributedWrite.abort(table.location(), table.hadoopConf(), fragments);
  }

  static List<FragmentMetadata> fragmentsOf(WriterCommitMessage[] messages) {
    List<FragmentMetadata> out = new ArrayList<>();
    for (WriterCommitMessage m : messages) {
      if (m instanceof LanceCommitMessage lm) {
        out.addAll(lm.fragments());
      }
    }
    return out;
  }
}
