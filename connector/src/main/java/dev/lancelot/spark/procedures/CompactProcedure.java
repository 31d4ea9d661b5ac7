package dev.lancelot.spark.procedures;

import dev.lancelot.engine.CompactionOptions;
import dev.lancelot.engine.CompactionResult;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.spark.LanceCatalog;
import dev.lancelot.spark.LancePathCatalog;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code CALL lance.system.compact(table => 'db.items' [, target_rows_per_fragment => 1048576,
 * materialize_deletions => true])}: the engine's {@link Dataset#compact}, run on the driver — small
 * fragments and fragments with many deleted rows are rewritten into larger ones, the index segments
 * covering them remapped, all in one new version (decision D23). Returns one row; the version stays
 * (and {@code committed} is false) when nothing needs compacting.
 */
final class CompactProcedure extends LanceProcedure {
  static final String NAME = "compact";
  private static final String SUMMARY =
      "Rewrites small fragments and fragments with many deleted rows into larger ones (on the driver) and "
          + "commits them, with their index segments remapped, as one new version.";

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

  private static final ProcedureParameter[] PARAMETERS = {
    required("table", DataTypes.StringType),
    optional(
        "target_rows_per_fragment",
        DataTypes.LongType,
        Integer.toString(CompactionOptions.DEFAULT_TARGET_ROWS_PER_FRAGMENT)),
    optional("materialize_deletions", DataTypes.BooleanType, "true"),
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
            .withMaterializeDeletions(args.bool("materialize_deletions", true));
    try (Dataset ds =
        Dataset.open(
            location, OpenOptions.defaults().withHadoopConf(LancePathCatalog.hadoopConf()))) {
      CompactionResult r = ds.compact(options);
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
}
