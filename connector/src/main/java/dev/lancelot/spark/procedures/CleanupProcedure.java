package dev.lancelot.spark.procedures;

import dev.lancelot.engine.CleanupOptions;
import dev.lancelot.engine.CleanupResult;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.spark.LanceCatalog;
import dev.lancelot.spark.LancePathCatalog;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code CALL lance.system.cleanup(table => 'db.items', older_than => '2026-12-01 00:00:00' |
 * retain_versions => 5 [, delete_unverified => false])}: the engine's {@link Dataset#cleanup} —
 * removes the versions selected (never the latest, a tagged one or one a branch starts from) and
 * every file no kept version or branch references; files no version ever referenced only once older
 * than 7 days unless {@code delete_unverified}. {@code older_than} is a timestamp in the session
 * time zone ({@code yyyy-MM-dd[ HH:mm:ss[.fraction]]}) or an ISO-8601 instant ({@code ...Z} or with
 * an offset). Returns one row.
 */
final class CleanupProcedure extends LanceProcedure {
  static final String NAME = "cleanup";
  private static final String SUMMARY =
      "Removes versions older than older_than and/or beyond the retain_versions newest (never the latest, a "
          + "tagged version or one a branch starts from), then every file no kept version references.";

  static final StructType OUTPUT =
      new StructType()
          .add("latest_version", DataTypes.LongType, false)
          .add("versions_removed", DataTypes.createArrayType(DataTypes.LongType, false), false)
          .add("data_files_removed", DataTypes.LongType, false)
          .add("deletion_files_removed", DataTypes.LongType, false)
          .add("transaction_files_removed", DataTypes.LongType, false)
          .add("index_segments_removed", DataTypes.LongType, false)
          .add("unreferenced_files_removed", DataTypes.LongType, false)
          .add("bytes_removed", DataTypes.LongType, false);

  private static final Parameter[] PARAMETERS = {
    required("table", DataTypes.StringType),
    optional("older_than", DataTypes.StringType),
    optional("retain_versions", DataTypes.LongType),
    optional("delete_unverified", DataTypes.BooleanType, "false"),
  };

  CleanupProcedure(LanceCatalog catalog) {
    super(catalog, NAME, SUMMARY, PARAMETERS, OUTPUT);
  }

  @Override
  protected List<InternalRow> run(SparkSession spark, ProcedureArguments args) {
    if (!args.has("older_than") && !args.has("retain_versions")) {
      throw new InvalidInputException(
          "give older_than (a timestamp) and/or retain_versions (a number of versions); "
              + "without either cleanup would select nothing.");
    }
    Optional<Instant> olderThan =
        args.has("older_than")
            ? Optional.of(parseInstant(args.string("older_than"), sessionZone(spark)))
            : Optional.empty();
    OptionalInt retain = OptionalInt.empty();
    if (args.has("retain_versions")) {
      long n = ((Number) args.given().get("retain_versions")).longValue();
      if (n < 1 || n > Integer.MAX_VALUE) {
        throw new InvalidInputException(
            "argument retain_versions must be at least 1 (the latest version is always "
                + "kept), got "
                + n
                + ".");
      }
      retain = OptionalInt.of((int) n);
    }
    String location = tableLocation(args);
    CleanupOptions options =
        new CleanupOptions(olderThan, retain, args.bool("delete_unverified", false));
    try (Dataset ds =
        Dataset.open(
            location, OpenOptions.defaults().withHadoopConf(LancePathCatalog.hadoopConf()))) {
      CleanupResult r = ds.cleanup(options);
      return List.of(
          new GenericInternalRow(
              new Object[] {
                ds.version(),
                new GenericArrayData(r.versionsRemoved().toArray()),
                r.dataFilesRemoved(),
                r.deletionFilesRemoved(),
                r.transactionFilesRemoved(),
                r.indexSegmentsRemoved(),
                r.unreferencedFilesRemoved(),
                r.bytesRemoved()
              }));
    }
  }

  private static ZoneId sessionZone(SparkSession spark) {
    return ZoneId.of(spark.sessionState().conf().sessionLocalTimeZone());
  }

  /** An ISO-8601 instant, or a local date-time or date in {@code zone}. */
  static Instant parseInstant(String text, ZoneId zone) {
    String t = text.trim();
    try {
      return Instant.parse(t.replace(' ', 'T'));
    } catch (DateTimeParseException e) {
      // not an instant with zone or offset; try a local date-time
    }
    try {
      return java.time.OffsetDateTime.parse(t.replace(' ', 'T')).toInstant();
    } catch (DateTimeParseException e) {
      // no offset either
    }
    try {
      return LocalDateTime.parse(t.replace(' ', 'T')).atZone(zone).toInstant();
    } catch (DateTimeParseException e) {
      // maybe a date alone
    }
    try {
      return LocalDate.parse(t).atStartOfDay(zone).toInstant();
    } catch (DateTimeException e) {
      throw new InvalidInputException(
          "argument older_than \""
              + text
              + "\" is not a timestamp; write it as "
              + "'yyyy-MM-dd HH:mm:ss' (session time zone "
              + zone
              + "), 'yyyy-MM-dd', or an ISO-8601 instant such as "
              + "'2026-12-01T00:00:00Z'.");
    }
  }
}
