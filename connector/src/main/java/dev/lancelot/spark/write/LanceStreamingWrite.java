package dev.lancelot.spark.write;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentMetadata;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.distributed.DistributedWrite;
import dev.lancelot.spark.LanceTable;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.connector.write.streaming.StreamingDataWriterFactory;
import org.apache.spark.sql.connector.write.streaming.StreamingWrite;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Structured Streaming sink (S10): each micro-batch's tasks write fragment files, and the driver
 * commits them as one version whose transaction records the query and the batch ({@value
 * #QUERY_KEY}, {@value #EPOCH_KEY}). Before committing batch {@code n} the driver looks for the
 * query's newest commit ({@link DistributedWrite#newestCommitWith}); when it recorded {@code n} or
 * a later batch, the batch was committed before a failure and is not committed again (its new files
 * are deleted): exactly once across driver restarts and task retries. Append mode appends; complete
 * mode overwrites the table with each batch's result.
 */
final class LanceStreamingWrite implements StreamingWrite {
  /** The transaction property naming the streaming query (lance-spark records the same key). */
  static final String QUERY_KEY = "lance.streaming.queryId";

  /** The transaction property naming the micro-batch (epoch) of the query. */
  static final String EPOCH_KEY = "lance.streaming.epochId";

  private static final Logger LOG = LoggerFactory.getLogger(LanceStreamingWrite.class);
  private final LanceTable table;
  private final LanceBatchWrite plan;
  private final String queryId;
  private final boolean complete;
  private final StreamIndexMaintenance maintenance;
  private final java.util.Set<String> warnedIndexes =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  /**
   * @param plan the schema, file options and task setup, planned once when the query starts
   * @param queryId the idempotency key: the query's id, which Spark keeps in the checkpoint
   * @param complete complete output mode: each batch overwrites the table
   * @param maintenance when to optimize the table's indexes after a batch (S13)
   */
  LanceStreamingWrite(
      LanceTable table,
      LanceBatchWrite plan,
      String queryId,
      boolean complete,
      StreamIndexMaintenance maintenance) {
    this.table = table;
    this.plan = plan;
    this.queryId = queryId;
    this.complete = complete;
    this.maintenance = maintenance;
  }

  @Override
  public StreamingDataWriterFactory createStreamingWriterFactory(PhysicalWriteInfo info) {
    return new LanceDataWriterFactory(plan.taskSetup());
  }

  @Override
  public boolean useCommitCoordinator() {
    return true;
  }

  @Override
  public void commit(long epochId, WriterCommitMessage[] messages) {
    List<FragmentMetadata> fragments = LanceBatchWrite.fragmentsOf(messages);
    try {
      commit(epochId, fragments);
    } catch (LancelotException e) {
      DistributedWrite.abort(table.location(), table.hadoopConf(), fragments);
      throw e;
    }
  }

  private void commit(long epochId, List<FragmentMetadata> fragments) {
    Optional<Dataset> latest = openLatest();
    try {
      long committedEpoch = -1;
      if (latest.isPresent()) {
        Optional<Map<String, String>> last =
            DistributedWrite.newestCommitWith(latest.get(), QUERY_KEY, queryId);
        committedEpoch = last.map(p -> epochOf(p.get(EPOCH_KEY))).orElse(-1L);
        if (committedEpoch >= epochId) {
          LOG.info(
              "Batch {} of streaming query {} was committed to {} before (its newest batch there is"
                  + " {}): not committing it again, deleting the {} fragments written again",
              epochId,
              queryId,
              table.location(),
              committedEpoch,
              fragments.size());
          DistributedWrite.abort(table.location(), table.hadoopConf(), fragments);
          return;
        }
      }
      if (fragments.isEmpty() && !complete) {
        LOG.debug(
            "Batch {} of streaming query {} wrote no rows: nothing to commit", epochId, queryId);
        return;
      }
      WriteMode mode =
          complete ? WriteMode.OVERWRITE : latest.isPresent() ? WriteMode.APPEND : WriteMode.CREATE;
      if (mode == WriteMode.APPEND && !latest.get().lanceSchema().equals(plan.schema())) {
        throw new InvalidInputException(
            "Cannot commit batch "
                + epochId
                + " of streaming query "
                + queryId
                + " to "
                + table.location()
                + ": the table's schema changed since the query started (it is now "
                + latest.get().lanceSchema().toArrow()
                + "). Restart the query.");
      }
      long readVersion = latest.map(Dataset::version).orElse(0L);
      try (Dataset committed =
          DistributedWrite.commit(
              table.location(),
              table.hadoopConf(),
              plan.schema(),
              fragments,
              plan.writeOptions().withMode(mode),
              readVersion,
              Map.of(QUERY_KEY, queryId, EPOCH_KEY, Long.toString(epochId)))) {
        LOG.info(
            "Committed batch {} of streaming query {} ({} rows in {} fragments) to {} as version {}"
                + " ({})",
            epochId,
            queryId,
            fragments.stream().mapToLong(FragmentMetadata::physicalRows).sum(),
            fragments.size(),
            table.location(),
            committed.version(),
            mode);
        if (maintenance.enabled()) {
          maintenance.run(
              org.apache.spark.sql.SparkSession.active(),
              table.location(),
              committed,
              committedEpoch,
              epochId,
              queryId,
              warnedIndexes);
        }
      }
    } finally {
      latest.ifPresent(Dataset::close);
    }
  }

  private static long epochOf(String value) {
    try {
      return value == null ? -1 : Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private Optional<Dataset> openLatest() {
    if (!Dataset.exists(table.location(), table.hadoopConf())) {
      return Optional.empty();
    }
    return Optional.of(
        Dataset.open(table.location(), OpenOptions.defaults().withHadoopConf(table.hadoopConf())));
  }

  @Override
  public void abort(long epochId, WriterCommitMessage[] messages) {
    List<FragmentMetadata> fragments = LanceBatchWrite.fragmentsOf(messages);
    LOG.warn(
        "Batch {} of streaming query {} to {} aborted: deleting {} uncommitted fragments",
        epochId,
        queryId,
        table.location(),
        fragments.size());
    DistributedWrite.abort(table.location(), table.hadoopConf(), fragments);
  }
}
