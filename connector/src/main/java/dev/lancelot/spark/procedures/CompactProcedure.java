package dev.lancelot.spark.procedures;

import dev.lancelot.engine.CompactionOptions;
import dev.lancelot.engine.CompactionResult;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.distributed.CompactionPlan;
import dev.lancelot.engine.distributed.CompactionTask;
import dev.lancelot.engine.distributed.RewrittenGroup;
import dev.lancelot.spark.ConfigurationBroadcasts;
import dev.lancelot.spark.LanceCatalog;
import dev.lancelot.spark.LancePathCatalog;
import dev.lancelot.spark.SerializableConfiguration;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code CALL lance.system.compact(table => 'db.items' [, target_rows_per_fragment => 1048576,
 * materialize_deletions => true, target_base => 'b1'])}: the engine's compaction (decision D23)
 * with its fragment groups rewritten by Spark tasks — the driver plans the groups ({@link
 * CompactionPlan}), one task per group copies its live rows into new fragments where the executors
 * are, and the driver remaps the index segments covering them and commits everything in one new
 * version. Returns one row; the version stays (and {@code committed} is false) when nothing needs
 * compacting.
 */
final class CompactProcedure extends LanceProcedure {
  static final String NAME = "compact";
  private static final String SUMMARY =
      "Rewrites small fragments and fragments with many deleted rows into larger ones (one Spark task per "
          + "group of fragments) and commits them, with their index segments remapped, as one new version.";

  static final StructType OUTPUT =
      new StructType()
          .add("version", DataTypes.LongType, false)
          .add("committed", DataTypes.BooleanType, false)
          .add("fragments_removed", DataTypes.LongType, false)
          .add("fragments_added", DataTypes.LongType, false)
          .add("files_removed", DataTypes.LongType, false)
          .add("files_added", DataTypes.LongType, false)
          .add("rows_rewritten", DataTypes.LongType, false)
          .add("index_segments_remapped", DataTypes.LongType, false);

  private static final Parameter[] PARAMETERS = {
    required("table", DataTypes.StringType),
    optional(
        "target_rows_per_fragment",
        DataTypes.LongType,
        Integer.toString(CompactionOptions.DEFAULT_TARGET_ROWS_PER_FRAGMENT)),
    optional("materialize_deletions", DataTypes.BooleanType, "true"),
    optional("target_base", DataTypes.StringType),
  };

  CompactProcedure(LanceCatalog catalog) {
    super(catalog, NAME, SUMMARY, PARAMETERS, OUTPUT);
  }

  @Override
  protected List<InternalRow> run(SparkSession spark, ProcedureArguments args) {
    long target =
        ((Number)
                args.given()
                    .getOrDefault(
                        "target_rows_per_fragment",
                        (long) CompactionOptions.DEFAULT_TARGET_ROWS_PER_FRAGMENT))
            .longValue();
    if (target < 1 || target > Integer.MAX_VALUE) {
      throw new InvalidInputException(
          "argument target_rows_per_fragment must be between 1 and "
              + Integer.MAX_VALUE
              + ", got "
              + target
              + ".");
    }
    String location = tableLocation(args);
    CompactionOptions options =
        CompactionOptions.defaults()
            .withTargetRowsPerFragment((int) target)
            .withMaterializeDeletions(args.bool("materialize_deletions", true))
            .withTargetBase(args.has("target_base") ? args.string("target_base") : null);
    Configuration conf = LancePathCatalog.hadoopConf();
    try (Dataset ds = Dataset.open(location, OpenOptions.defaults().withHadoopConf(conf))) {
      CompactionResult r = compact(spark, ds, options, conf);
      return List.of(
          new GenericInternalRow(
              new Object[] {
                r.dataset().version(),
                r.committed(),
                (long) r.fragmentsRemoved(),
                (long) r.fragmentsAdded(),
                (long) r.filesRemoved(),
                (long) r.filesAdded(),
                r.rowsRewritten(),
                (long) r.indexSegmentsRemapped()
              }));
    }
  }

  /** Plans on the driver, rewrites each group in a Spark task, commits on the driver. */
  static CompactionResult compact(
      SparkSession spark, Dataset ds, CompactionOptions options, Configuration conf) {
    CompactionPlan plan = CompactionPlan.plan(ds, options);
    if (plan.isEmpty()) {
      return plan.commit(ds, List.of());
    }
    List<byte[]> tasks = plan.tasks().stream().map(CompactionTask::toBytes).toList();
    Broadcast<SerializableConfiguration> shipped =
        ConfigurationBroadcasts.of(spark.sparkContext(), conf);
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    jsc.setJobDescription(
        "lance compact " + ds.location() + "@v" + ds.version() + ": " + tasks.size() + " group(s)");
    List<RewrittenGroup> rewritten = new ArrayList<>();
    try {
      for (byte[] r :
          jsc.parallelize(tasks, tasks.size())
              .map(bytes -> rewrite(bytes, shipped.value().get()))
              .collect()) {
        rewritten.add(RewrittenGroup.fromBytes(r));
      }
    } finally {
      jsc.setJobDescription(null);
    }
    return plan.commit(ds, rewritten);
  }

  /** In a Spark task: one group rewritten, returned as bytes. */
  private static byte[] rewrite(byte[] bytes, Configuration conf) {
    CompactionTask task = CompactionTask.fromBytes(bytes);
    return task.run(Dataset.openCached(task.location(), task.version(), conf)).toBytes();
  }
}
