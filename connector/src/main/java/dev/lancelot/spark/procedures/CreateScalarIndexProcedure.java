package dev.lancelot.spark.procedures;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.index.scalar.BTreeBuildParams;
import dev.lancelot.engine.index.scalar.BTreeIndexStatistics;
import dev.lancelot.spark.LanceCatalog;
import dev.lancelot.spark.LancePathCatalog;
import dev.lancelot.spark.index.LanceIndexBuilder;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * {@code CALL lance.system.create_scalar_index(table => 'db.items', column => 'tenant_id' [,
 * index_type => 'BTREE', name => 'tenant_id_idx', replace => true])}: builds a BTree index in Spark
 * tasks ({@link LanceIndexBuilder#createScalarIndex}: one task per group of at most {@code
 * spark.lancelot.index.rowsPerSegment} live rows writes that group's segment) and commits it in one
 * version.
 */
final class CreateScalarIndexProcedure extends LanceProcedure {
  static final String NAME = "create_scalar_index";
  private static final String SUMMARY =
      "Builds a BTree index on a scalar column (one Spark task per group of fragments) and commits it as one new version.";

  private static final StructType OUTPUT =
      new StructType()
          .add("name", DataTypes.StringType, false)
          .add("index_type", DataTypes.StringType, false)
          .add("column", DataTypes.StringType, false)
          .add("version", DataTypes.LongType, false)
          .add("indexed_rows", DataTypes.LongType, false)
          .add("null_rows", DataTypes.LongType, false)
          .add("unindexed_rows", DataTypes.LongType, false);

  private static final ProcedureParameter[] PARAMETERS = {
    required("table", DataTypes.StringType),
    required("column", DataTypes.StringType),
    optional("index_type", DataTypes.StringType, "'BTREE'"),
    optional("name", DataTypes.StringType),
    optional("replace", DataTypes.BooleanType, "false"),
  };

  CreateScalarIndexProcedure(LanceCatalog catalog) {
    super(catalog, NAME, SUMMARY, PARAMETERS, OUTPUT);
  }

  @Override
  protected List<InternalRow> run(SparkSession spark, ProcedureArguments args) {
    String type = args.string("index_type");
    if (!type.trim().equalsIgnoreCase("BTREE")) {
      throw new InvalidInputException(
          "unknown scalar index type \""
              + type
              + "\"; the only scalar index type is BTREE"
              + (type.trim().toUpperCase(Locale.ROOT).startsWith("IVF")
                  ? " (vector indexes are built with "
                      + qualifiedName().replace(NAME, CreateIndexProcedure.NAME)
                      + ")"
                  : "")
              + ".");
    }
    String location = tableLocation(args);
    BTreeBuildParams params =
        BTreeBuildParams.of(args.string("column")).withReplace(args.bool("replace", false));
    if (args.has("name")) {
      params = params.withName(args.string("name"));
    }
    long version = LanceIndexBuilder.createScalarIndex(spark, location, params);
    try (Dataset built =
        Dataset.open(
            location,
            OpenOptions.defaults()
                .withHadoopConf(LancePathCatalog.hadoopConf())
                .withVersion(version))) {
      BTreeIndexStatistics st = BTreeIndexStatistics.of(built, params.name());
      return List.of(
          new GenericInternalRow(
              new Object[] {
                UTF8String.fromString(params.name()),
                UTF8String.fromString("BTREE"),
                UTF8String.fromString(st.column()),
                built.version(),
                st.rowsIndexed(),
                st.nullRows(),
                st.unindexedRows()
              }));
    }
  }
}
