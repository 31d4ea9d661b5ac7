package dev.lancelot.spark.read;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentInfo;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.ScanTask;
import dev.lancelot.engine.distributed.ScanPlan;
import dev.lancelot.engine.expr.Predicate;
import dev.lancelot.spark.ConfigurationBroadcasts;
import dev.lancelot.spark.LanceTable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.streaming.CompositeReadLimit;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.connector.read.streaming.Offset;
import org.apache.spark.sql.connector.read.streaming.ReadAllAvailable;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.apache.spark.sql.connector.read.streaming.ReadMaxFiles;
import org.apache.spark.sql.connector.read.streaming.ReadMaxRows;
import org.apache.spark.sql.connector.read.streaming.SupportsAdmissionControl;
import org.apache.spark.sql.connector.read.streaming.SupportsTriggerAvailableNow;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lance table as a Structured Streaming source (semantics S11, decision D72): each micro-batch
 * delivers the rows of the versions committed since the last one — the first batch, without {@code
 * startingVersion}, the latest version's whole content — cut to the rate limits ({@code
 * maxRowsPerTrigger}, {@code maxFilesPerTrigger}). Offsets are positions in the table's history
 * ({@link LanceStreamOffset}), so a query restarted from its checkpoint delivers each row once.
 * Each batch reads every fragment at the version that added it, with the scan's projection and
 * filter, as the batch reader does.
 */
final class LanceMicroBatchStream
    implements MicroBatchStream, SupportsAdmissionControl, SupportsTriggerAvailableNow {
  private static final Logger LOG = LoggerFactory.getLogger(LanceMicroBatchStream.class);
  private final LanceScan scan;
  private final LanceTable table;
  private final LanceStreamOptions options;
  private final LanceStreamHistory history;
  private long lastVersion = Long.MAX_VALUE;

  LanceMicroBatchStream(LanceScan scan, LanceStreamOptions options) {
    this.scan = scan;
    this.table = scan.table();
    this.options = options;
    this.history =
        new LanceStreamHistory(table.location(), table.hadoopConf(), options.skipChangeCommits());
  }

  @Override
  public Offset initialOffset() {
    long latest = history.latestVersion();
    LanceStreamOffset start;
    if (options.latest()) {
      start = LanceStreamOffset.changesOf(latest + 1);
    } else if (options.startingVersion().isPresent()) {
      long v = options.startingVersion().getAsLong();
      if (v > latest) {
        throw new InvalidInputException(
            "Cannot start streaming "
                + table.location()
                + " at startingVersion "
                + v
                + ": the latest version is "
                + latest
                + ".");
      }
      history.open(v); // fails clearly when cleanup removed it
      start = LanceStreamOffset.changesOf(v);
    } else {
      start = LanceStreamOffset.snapshotOf(latest);
    }
    LOG.info("Streaming {} from {}", table.location(), start.json());
    return start.toSpark();
  }

  @Override
  public ReadLimit getDefaultReadLimit() {
    return options.readLimit();
  }

  /** Trigger.AvailableNow: the query stops after the version that is the latest now. */
  @Override
  public void prepareForTriggerAvailableNow() {
    lastVersion = history.latestVersion();
  }

  @Override
  public Offset latestOffset() {
    throw new UnsupportedOperationException(
        "The lance source is asked for offsets with a read limit (latestOffset(Offset, ReadLimit))");
  }

  @Override
  public Offset latestOffset(Offset start, ReadLimit limit) {
    long[] rowsAndFiles = {0, 0};
    limits(limit, rowsAndFiles);
    long last = Math.min(lastVersion, history.latestVersion());
    LanceStreamHistory.Walk walk =
        history.walk(
            LanceStreamOffset.of(start), last, null, rowsAndFiles[0], (int) rowsAndFiles[1]);
    return walk.end().toSpark();
  }

  private static void limits(ReadLimit limit, long[] rowsAndFiles) {
    if (limit instanceof ReadMaxRows r) {
      rowsAndFiles[0] = r.maxRows();
    } else if (limit instanceof ReadMaxFiles f) {
      rowsAndFiles[1] = f.maxFiles();
    } else if (limit instanceof CompositeReadLimit c) {
      for (ReadLimit l : c.getReadLimits()) {
        limits(l, rowsAndFiles);
      }
    } else if (!(limit instanceof ReadAllAvailable)) {
      throw new IllegalArgumentException("The lance source does not offer read limit " + limit);
    }
  }

  @Override
  public InputPartition[] planInputPartitions(Offset start, Offset end) {
    LanceStreamOffset to = LanceStreamOffset.of(end);
    LanceStreamHistory.Walk walk =
        history.walk(LanceStreamOffset.of(start), to.version(), to, 0, 0);
    Map<Long, ScanPlan> plans = new HashMap<>();
    Map<Long, Map<Long, FragmentInfo>> fragments = new HashMap<>();
    BlockHosts hosts = new BlockHosts(table.location(), table.hadoopConf());
    long maxRows = scan.options().maxRowsPerPartition();
    List<InputPartition> out = new ArrayList<>();
    for (LanceStreamHistory.Chunk c : walk.chunks()) {
      ScanPlan plan = plans.computeIfAbsent(c.version(), this::plan);
      FragmentInfo f =
          fragments
              .computeIfAbsent(c.version(), v -> byId(history.open(v).fragments()))
              .get(c.fragmentId());
      String[] where = hosts.of(f);
      for (long from = c.startRow(); from < c.endRow(); from += maxRows) {
        ScanTask task = new ScanTask(c.fragmentId(), from, Math.min(c.endRow(), from + maxRows));
        out.add(
            new LanceStreamPartition(
                new LanceInputPartition(table.location(), c.version(), task, where), plan));
      }
    }
    LOG.info(
        "Micro-batch of {} from {} to {}: {} rows of {} fragment pieces in {} partitions",
        table.location(),
        start.json(),
        end.json(),
        walk.rows(),
        walk.chunks().size(),
        out.size());
    return out.toArray(new InputPartition[0]);
  }

  private static Map<Long, FragmentInfo> byId(List<FragmentInfo> fragments) {
    Map<Long, FragmentInfo> out = new HashMap<>();
    fragments.forEach(f -> out.put(f.id(), f));
    return out;
  }

  /** The scan's projection and filter, planned on {@code version} (checked there). */
  private ScanPlan plan(long version) {
    Dataset ds = history.open(version);
    Predicate filter = scan.filter();
    try {
      return ScanPlan.plan(
          ds.newScan()
              .columns(scan.dataColumns())
              .filter(filter == null ? null : ds.bindFilter(filter))
              .batchSize(scan.options().batchSize())
              .withRowAddress(scan.columns().size() > scan.dataColumns().size())
              .withRowId(
                  scan.columns().contains(MetadataColumns.ROW_ID)
                      && !scan.dataColumns().contains(MetadataColumns.ROW_ID))
              .useScalarIndex(false),
          scan.options().maxRowsPerPartition());
    } catch (InvalidInputException e) {
      throw new InvalidInputException(
          "Cannot stream version "
              + version
              + " of "
              + table.location()
              + " with the query's columns "
              + scan.columns()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return new LanceStreamReaderFactory(
        ConfigurationBroadcasts.of(SparkSession.active().sparkContext(), table.hadoopConf()),
        scan.columns());
  }

  @Override
  public Offset deserializeOffset(String json) {
    return LanceStreamOffset.parse(json).toSpark();
  }

  @Override
  public void commit(Offset end) {
    // Nothing to release: the offsets are positions in the table's history.
  }

  @Override
  public void stop() {
    // Nothing to stop.
  }

  @Override
  public String toString() {
    return "LanceMicroBatchStream[" + table.location() + "]";
  }
}
