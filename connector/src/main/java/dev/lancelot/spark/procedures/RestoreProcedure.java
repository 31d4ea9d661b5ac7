package dev.lancelot.spark.procedures;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.spark.LanceCatalog;
import dev.lancelot.spark.LancePathCatalog;
import java.time.Instant;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code CALL lance.system.restore(table => 'db.items', version => 3 | timestamp => TIMESTAMP
 * '2026-12-01 10:00:00')}: the engine's {@link Dataset#restore(long)} (with {@link
 * Dataset#versionAt(Instant)}) — commits the old version's content (schema, rows, indexes, config)
 * as a new latest version, Lance's {@code Restore} (decision D55). Exactly one of {@code version}
 * and {@code timestamp}; a timestamp selects the latest version committed at or before it. Returns
 * one row: the new version and the restored one.
 */
final class RestoreProcedure extends LanceProcedure {
  static final String NAME = "restore";
  private static final String SUMMARY =
      "Commits an old version (by number, or the latest committed at or before timestamp) as a new "
          + "latest version with the same content, Lance's Restore; later versions stay in the history.";

  static final StructType OUTPUT =
      new StructType()
          .add("version", DataTypes.LongType, false)
          .add("restored_version", DataTypes.LongType, false);

  private static final Parameter[] PARAMETERS = {
    required("table", DataTypes.StringType),
    optional("version", DataTypes.LongType),
    optional("timestamp", DataTypes.TimestampType),
  };

  RestoreProcedure(LanceCatalog catalog) {
    super(catalog, NAME, SUMMARY, PARAMETERS, OUTPUT);
  }

  @Override
  protected List<InternalRow> run(SparkSession spark, ProcedureArguments args) {
    if (args.has("version") == args.has("timestamp")) {
      throw new InvalidInputException(
          "give exactly one of version (a version number) and timestamp (a TIMESTAMP), got "
              + (args.has("version") ? "both." : "neither."));
    }
    String location = tableLocation(args);
    try (Dataset ds =
        Dataset.open(
            location, OpenOptions.defaults().withHadoopConf(LancePathCatalog.hadoopConf()))) {
      long version =
          args.has("version")
              ? ((Number) args.given().get("version")).longValue()
              : ds.versionAt(instant(((Number) args.given().get("timestamp")).longValue()));
      try (Dataset restored = ds.restore(version)) {
        return List.of(new GenericInternalRow(new Object[] {restored.version(), version}));
      }
    }
  }

  /** A Spark TIMESTAMP value (microseconds since the epoch) as an instant. */
  static Instant instant(long micros) {
    return Instant.ofEpochSecond(
        Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
  }
}
