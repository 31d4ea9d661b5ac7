package dev.lancelot.engine.distributed;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.lancelot.engine.ColumnBackfill;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentMetadata;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.format.SchemaProtos;
import dev.lancelot.engine.internal.format.proto.FileProtos;
import dev.lancelot.engine.schema.LanceSchema;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.hadoop.conf.Configuration;

/**
 * A write split over many tasks and committed as one version (SPEC W1–W4): the coordinator decides
 * the target schema (the dataset's own for appends, {@link LanceSchema#fromArrow} for creates and
 * overwrites) and ships it to the tasks ({@link #schemaToBytes}); each task writes its rows with a
 * {@link FragmentWriter} and sends back the {@link FragmentMetadata} of what it wrote; the
 * coordinator {@linkplain #commit commits} all of them in one version, or {@linkplain #abort
 * deletes} them when the job fails.
 */
public final class DistributedWrite {
  private DistributedWrite() {}

  /**
   * The writer of one task: data files for {@code schema} (the target schema the coordinator
   * shipped) under {@code location}, each at most {@link WriteOptions#maxRowsPerFile()} rows.
   */
  public static FragmentWriter newFragmentWriter(
      String location, Configuration conf, LanceSchema schema, WriteOptions options) {
    return new FragmentWriter(DatasetInternals.newFragmentWriter(location, conf, schema, options));
  }

  /**
   * Commits the fragments of every task as one new version, as {@code mode} says. {@code
   * readVersion} is the version the write was planned against (0 when the dataset did not exist),
   * so that a concurrent change is detected as Lance's conflict rules say.
   */
  public static Dataset commit(
      String location,
      Configuration conf,
      LanceSchema schema,
      List<FragmentMetadata> fragments,
      WriteMode mode,
      long readVersion) {
    return commit(location, conf, schema, fragments, WriteOptions.of(mode), readVersion);
  }

  /**
   * As {@link #commit(String, Configuration, LanceSchema, List, WriteMode, long)}, with the mode
   * and the dataset options of a create ({@link WriteOptions#enableStableRowIds()}) taken from
   * {@code options}.
   */
  public static Dataset commit(
      String location,
      Configuration conf,
      LanceSchema schema,
      List<FragmentMetadata> fragments,
      WriteOptions options,
      long readVersion) {
    return commit(location, conf, schema, fragments, options, readVersion, Map.of());
  }

  /**
   * As {@link #commit(String, Configuration, LanceSchema, List, WriteOptions, long)}, recording
   * {@code transactionProperties} in the version's transaction (Lance's {@code
   * transaction_properties}, which Lance readers show with the version), e.g. the query and batch
   * of a streaming write, which {@link #newestCommitWith} finds again.
   */
  public static Dataset commit(
      String location,
      Configuration conf,
      LanceSchema schema,
      List<FragmentMetadata> fragments,
      WriteOptions options,
      long readVersion,
      Map<String, String> transactionProperties) {
    return DatasetInternals.commitFragments(
        location, conf, schema, fragments, options, readVersion, transactionProperties);
  }

  /**
   * The transaction properties of the newest version of {@code dataset} (its own version or an
   * earlier one) whose transaction records {@code key = value}, or empty when none of the versions
   * still present does: how a writer that records an idempotency key with each commit (a streaming
   * query and its batch) learns, after a failure, what it already committed. Reads one manifest per
   * version, newest first, and stops at the first match.
   */
  public static Optional<Map<String, String>> newestCommitWith(
      Dataset dataset, String key, String value) {
    return DatasetInternals.newestCommitWith(dataset, key, value);
  }

  /**
   * Deletes the files of fragments written but not committed (a failed or aborted job). Files the
   * latest version refers to are kept (a commit whose outcome a storage error hid may have been
   * published).
   */
  public static void abort(String location, Configuration conf, List<FragmentMetadata> fragments) {
    DatasetInternals.abortFragments(location, conf, fragments);
  }

  /**
   * Writes data files for {@code batches} without committing them: a task's whole output at once
   * (the iterator form of {@link #newFragmentWriter}). The schema is the target schema.
   */
  public static List<FragmentMetadata> writeFragments(
      String location,
      Configuration conf,
      LanceSchema schema,
      Iterator<VectorSchemaRoot> batches,
      WriteOptions options) {
    return DatasetInternals.writeFragments(location, conf, schema, batches, options);
  }

  /**
   * One task of a distributed column backfill: writes the values of {@code added} (from {@link
   * Dataset#planAddedColumns}) for every physical row of fragment {@code fragmentId} of {@code
   * version}, computed by {@code backfill} (which gets batches without input columns, in row
   * order), into one new data file. Returns it as the fragment with that id and only the new file,
   * for {@link Dataset#commitAddedColumns}; {@link #abort} deletes it.
   */
  public static FragmentMetadata writeAddedColumns(
      String location,
      Configuration conf,
      long version,
      LanceSchema added,
      long fragmentId,
      ColumnBackfill backfill) {
    return writeAddedColumns(location, conf, version, added, fragmentId, backfill, null);
  }

  /**
   * As {@link #writeAddedColumns(String, Configuration, long, LanceSchema, long, ColumnBackfill)},
   * the file written to base {@code targetBase} (a name or path the version registers, as {@link
   * dev.lancelot.engine.WriteOptions#targetBase()}; {@code null}: the dataset root).
   */
  public static FragmentMetadata writeAddedColumns(
      String location,
      Configuration conf,
      long version,
      LanceSchema added,
      long fragmentId,
      ColumnBackfill backfill,
      String targetBase) {
    return DatasetInternals.writeAddedColumns(
        location, conf, version, added, fragmentId, backfill, targetBase);
  }

  /** A schema as bytes, to ship to the tasks ({@link #schemaFromBytes} reads it back). */
  public static byte[] schemaToBytes(LanceSchema schema) {
    return SchemaProtos.toProto(schema).toByteArray();
  }

  /**
   * Reads a schema written by {@link #schemaToBytes}.
   *
   * @throws InvalidInputException if the bytes are not a schema
   */
  public static LanceSchema schemaFromBytes(byte[] bytes) {
    try {
      return SchemaProtos.fromProto(FileProtos.Schema.parseFrom(bytes));
    } catch (InvalidProtocolBufferException e) {
      throw new InvalidInputException(
          "Cannot read a schema: the bytes are corrupt (" + e.getMessage() + ")");
    }
  }
}
