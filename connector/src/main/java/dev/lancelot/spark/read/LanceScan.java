package dev.lancelot.spark.read;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.ScanIndexUse;
import dev.lancelot.engine.ScanTask;
import dev.lancelot.engine.distributed.DatasetStatistics;
import dev.lancelot.engine.distributed.ScanPlan;
import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.expr.Predicate;
import dev.lancelot.spark.ConfigurationBroadcasts;
import dev.lancelot.spark.LanceOptions;
import dev.lancelot.spark.LanceTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.connector.read.SupportsReportStatistics;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A planned scan of one dataset version: one input partition per fragment, fragments larger than
 * {@code max_rows_per_partition} split by row range. Partitions carry only the dataset location,
 * version, task and projection (docs/architecture.md §7.4).
 *
 * <p>A pushed filter that scalar (BTree, bitmap) indexes answer, in whole or in part, is evaluated
 * with them once, when the scan is planned: each input partition then reads only the rows selected
 * in its range (the filter is applied to them again), and ranges with no selected row get no
 * partition (decision D52). The description (EXPLAIN) and the driver metrics say so.
 *
 * <p>A pushed {@code LIMIT n} stops each partition after {@code n} rows and, without a filter,
 * plans only the first tasks that hold {@code n} live rows by the manifest's counts; Spark still
 * applies its own limit over the partitions. Statistics come from the manifest ({@link
 * DatasetStatistics}, from the engine).
 */
public final class LanceScan implements Scan, Batch, SupportsReportStatistics {
  private final LanceTable table;
  private final LanceOptions options;
  private final StructType readSchema;
  private final Predicate filter;
  private final long limit;
  private final LanceStreamOptions streamOptions;
  private Statistics statistics;

  /**
   * The filter bound once, on the driver, to the scanned version; what the reader factory carries.
   */
  private BoundPredicate boundFilter;

  private ScanPlan plan;

  /**
   * {@code filter} is the pushed filter or null; {@code limit} the pushed LIMIT, or -1 for none.
   */
  /** Session conf: whether filtered scans read only the rows scalar indexes select. */
  public static final String USE_SCALAR_INDEX_CONF = "spark.lancelot.scan.useScalarIndex";

  LanceScan(
      LanceTable table,
      LanceOptions options,
      StructType readSchema,
      Predicate filter,
      long limit,
      LanceStreamOptions streamOptions) {
    this.table = table;
    this.options = options;
    this.readSchema = readSchema;
    this.filter = filter;
    this.limit = limit;
    this.streamOptions = streamOptions;
  }

  @Override
  public StructType readSchema() {
    return readSchema;
  }

  @Override
  public String description() {
    return "LanceScan["
        + table.location()
        + ", version="
        + table.datasetVersion()
        + ", columns="
        + Arrays.toString(readSchema.fieldNames())
        + (filter == null ? "" : ", filter=" + filter.toSql() + indexDescription())
        + (limit < 0 ? "" : ", limit=" + limit)
        + "]";
  }

  /** How the filter uses scalar indexes (planning the scan evaluates them). */
  private String indexDescription() {
    ScanIndexUse use = plan().indexUse();
    if (!use.used()) {
      return ", index=none";
    }
    return ", index="
        + use.indexes()
        + (use.exact() ? " exact" : " superset (filter rechecked)")
        + ", index lookups="
        + use.indexLookups()
        + ", rows selected="
        + use.rowsSelected()
        + ", fragments skipped="
        + use.fragmentsSkipped()
        + ", read in full="
        + use.fragmentsReadInFull();
  }

  /**
   * Rows and bytes from the manifest (no data read); computed once per scan. With a filter the row
   * count is unknown (only the bytes, an upper bound, are reported). A scan of no data column
   * (metadata columns only, or rows to count under a filter) reports every data file's bytes: an
   * upper bound, never zero for a table with rows.
   */
  @Override
  public Statistics estimateStatistics() {
    if (statistics == null) {
      Dataset ds = table.dataset();
      DatasetStatistics facts = DatasetStatistics.of(ds);
      OptionalLong rows =
          filter != null ? OptionalLong.empty() : OptionalLong.of(facts.estimatedLiveRows());
      if (rows.isPresent() && limit >= 0) {
        rows = OptionalLong.of(Math.min(limit, rows.getAsLong()));
      }
      List<String> read = dataColumns().isEmpty() ? ds.lanceSchema().names() : dataColumns();
      statistics = new ScanStatistics(facts.dataFileBytes(read), rows);
    }
    return statistics;
  }

  @Override
  public org.apache.spark.sql.connector.metric.CustomMetric[] supportedCustomMetrics() {
    return ScanMetrics.supported();
  }

  /** The scalar index lookups made when the scan was planned, and the rows they selected. */
  @Override
  public org.apache.spark.sql.connector.metric.CustomTaskMetric[] reportDriverMetrics() {
    return ScanMetrics.driver(plan().indexUse());
  }

  @Override
  public Batch toBatch() {
    return this;
  }

  /**
   * This scan's projection and filter as a stream of the rows each new version appends (semantics
   * S11); a pushed LIMIT is left to Spark.
   */
  @Override
  public MicroBatchStream toMicroBatchStream(String checkpointLocation) {
    if (streamOptions.timeTravel()) {
      throw new dev.lancelot.engine.InvalidInputException(
          "Cannot stream "
              + table.location()
              + " at a version named by option version, versionAsOf, tag or timestampAsOf: a"
              + " stream reads the versions committed over time; start it with option"
              + " startingVersion instead.");
    }
    return new LanceMicroBatchStream(this, streamOptions);
  }

  LanceTable table() {
    return table;
  }

  LanceOptions options() {
    return options;
  }

  /** The pushed filter, or null. */
  Predicate filter() {
    return filter;
  }

  /** The output columns, in order: data columns and metadata columns ({@link MetadataColumns}). */
  List<String> columns() {
    List<String> out = new ArrayList<>();
    for (StructField f : readSchema.fields()) {
      out.add(f.name());
    }
    return out;
  }

  /** The data columns the engine reads (metadata columns come from the row address). */
  List<String> dataColumns() {
    List<String> out = new ArrayList<>();
    for (String c : columns()) {
      if (!MetadataColumns.isMetadata(c, table.arrowSchema())) {
        out.add(c);
      }
    }
    return out;
  }

  @Override
  public InputPartition[] planInputPartitions() {
    ScanPlan plan = plan();
    List<ScanTask> tasks = plan.tasks();
    if (limit >= 0 && filter == null) {
      tasks = plan.statistics().firstTasksHolding(tasks, limit);
    }
    BlockHosts hosts = new BlockHosts(table.location(), table.hadoopConf());
    java.util.Map<Long, dev.lancelot.engine.FragmentInfo> fragments = new java.util.HashMap<>();
    table.dataset().fragments().forEach(f -> fragments.put(f.id(), f));
    InputPartition[] out = new InputPartition[tasks.size()];
    for (int i = 0; i < out.length; i++) {
      ScanTask task = tasks.get(i);
      out[i] =
          new LanceInputPartition(
              plan.location(), plan.version(), task, hosts.of(fragments.get(task.fragmentId())));
    }
    return out;
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return new LancePartitionReaderFactory(
        ConfigurationBroadcasts.of(SparkSession.active().sparkContext(), table.hadoopConf()),
        plan(),
        columns(),
        limit);
  }

  /**
   * The engine's plan of this scan, made once: the projection and the filter are checked on the
   * driver, before any task runs.
   */
  private synchronized ScanPlan plan() {
    if (plan == null) {
      Dataset ds = table.dataset();
      plan =
          ScanPlan.plan(
              ds.newScan()
                  .columns(dataColumns())
                  .filter(boundFilter(ds))
                  .batchSize(
                      limit > 0 ? (int) Math.min(options.batchSize(), limit) : options.batchSize())
                  .withRowAddress(columns().size() > dataColumns().size())
                  // the stable row id where the dataset has them (the address otherwise)
                  .withRowId(
                      columns().contains(MetadataColumns.ROW_ID)
                          && !dataColumns().contains(MetadataColumns.ROW_ID))
                  .useScalarIndex(useScalarIndex()),
              options.maxRowsPerPartition());
    }
    return plan;
  }

  /**
   * {@value #USE_SCALAR_INDEX_CONF} of the active session: {@code false} makes filtered scans read
   * every row of every fragment (the same result), e.g. to compare with the indexed read.
   */
  static boolean useScalarIndex() {
    return dev.lancelot.spark.LanceOptions.bool(
        USE_SCALAR_INDEX_CONF,
        org.apache.spark.sql.SparkSession.active().conf().get(USE_SCALAR_INDEX_CONF, "true"));
  }

  /** Binds the filter the first time; {@code ds} is the scanned version. */
  private synchronized BoundPredicate boundFilter(Dataset ds) {
    if (boundFilter == null && filter != null) {
      boundFilter = ds.bindFilter(filter);
    }
    return boundFilter;
  }
}
