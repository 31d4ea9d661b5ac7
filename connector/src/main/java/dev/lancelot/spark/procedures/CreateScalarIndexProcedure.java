package dev.lancelot.spark.procedures;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.index.IndexStatistics;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.scalar.BTreeIndexStatistics;
import dev.lancelot.engine.index.scalar.ScalarBuildParams;
import dev.lancelot.spark.LanceCatalog;
import dev.lancelot.spark.LancePathCatalog;
import dev.lancelot.spark.index.LanceIndexBuilder;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * {@code CALL lance.system.create_scalar_index(table => 'db.items', column => 'tenant_id' [,
 * index_type => 'BTREE' | 'BITMAP' | 'ZONEMAP' | 'BLOOM_FILTER' | 'LABEL_LIST' | 'NGRAM', name =>
 * 'tenant_id_idx', replace => true, rows_per_zone => 8192, number_of_items => 8192, probability =>
 * 0.00057])}: builds a scalar index in Spark tasks ({@link LanceIndexBuilder#createScalarIndex}:
 * for a BTree one task per group of at most {@code spark.lancelot.index.rowsPerSegment} live rows
 * writes that group's segment; the other kinds are written whole by one task) and commits it in one
 * version. {@code null_rows} is NULL for kinds that do not count NULL rows.
 */
final class CreateScalarIndexProcedure extends LanceProcedure {
  static final String NAME = "create_scalar_index";
  private static final String SUMMARY =
      "Builds a BTREE, BITMAP, ZONEMAP, BLOOM_FILTER, LABEL_LIST or NGRAM index in Spark tasks and commits it as one new version.";

  private static final StructType OUTPUT =
      new StructType()
          .add("name", DataTypes.StringType, false)
          .add("index_type", DataTypes.StringType, false)
          .add("column", DataTypes.StringType, false)
          .add("version", DataTypes.LongType, false)
          .add("indexed_rows", DataTypes.LongType, false)
          .add("null_rows", DataTypes.LongType, true)
          .add("unindexed_rows", DataTypes.LongType, false);

  private static final Parameter[] PARAMETERS = {
    required("table", DataTypes.StringType),
    required("column", DataTypes.StringType),
    optional("index_type", DataTypes.StringType, "'BTREE'"),
    optional("name", DataTypes.StringType),
    optional("replace", DataTypes.BooleanType, "false"),
    optional("rows_per_zone", DataTypes.LongType),
    optional("number_of_items", DataTypes.LongType),
    optional("probability", DataTypes.DoubleType),
  };

  CreateScalarIndexProcedure(LanceCatalog catalog) {
    super(catalog, NAME, SUMMARY, PARAMETERS, OUTPUT);
  }

  @Override
  protected List<InternalRow> run(SparkSession spark, ProcedureArguments args) {
    IndexType type;
    try {
      type = ScalarBuildParams.parseType(args.string("index_type"));
    } catch (InvalidInputException e) {
      throw new InvalidInputException(
          e.getMessage()
              + (args.string("index_type")
                      .trim()
                      .toUpperCase(java.util.Locale.ROOT)
                      .startsWith("IVF")
                  ? " Vector indexes are built with "
                      + qualifiedName().replace(NAME, CreateIndexProcedure.NAME)
                      + "."
                  : ""));
    }
    String location = tableLocation(args);
    ScalarBuildParams params =
        ScalarBuildParams.of(type, args.string("column")).withReplace(args.bool("replace", false));
    if (args.has("name")) {
      params = params.withName(args.string("name"));
    }
    if (args.has("rows_per_zone")) {
      requireKind(type, IndexType.ZONEMAP, "rows_per_zone");
      params = params.withRowsPerZone(number(args, "rows_per_zone").longValue());
    }
    if (args.has("number_of_items") || args.has("probability")) {
      requireKind(
          type,
          IndexType.BLOOM_FILTER,
          args.has("probability") ? "probability" : "number_of_items");
      params =
          params.withBloomFilter(
              args.has("number_of_items")
                  ? number(args, "number_of_items").longValue()
                  : params.bloomItems(),
              args.has("probability")
                  ? number(args, "probability").doubleValue()
                  : params.bloomProbability());
    }
    long version = LanceIndexBuilder.createScalarIndex(spark, location, params);
    try (Dataset built =
        Dataset.open(
            location,
            OpenOptions.defaults()
                .withHadoopConf(LancePathCatalog.hadoopConf())
                .withVersion(version))) {
      Object nullRows = null;
      long indexed;
      long unindexed;
      if (type == IndexType.BTREE) {
        BTreeIndexStatistics st = BTreeIndexStatistics.of(built, params.name());
        nullRows = st.nullRows();
        indexed = st.rowsIndexed();
        unindexed = st.unindexedRows();
      } else {
        IndexStatistics st = IndexStatistics.of(built, params.name());
        indexed = st.indexedRows();
        unindexed = st.unindexedRows();
      }
      return List.of(
          new GenericInternalRow(
              new Object[] {
                UTF8String.fromString(params.name()),
                UTF8String.fromString(type.name()),
                UTF8String.fromString(params.column()),
                built.version(),
                indexed,
                nullRows,
                unindexed
              }));
    }
  }

  /** A numeric argument, whether Spark cast it to the parameter's type or left it a decimal. */
  private static Number number(ProcedureArguments args, String name) {
    Object v = args.given().get(name);
    if (v instanceof org.apache.spark.sql.types.Decimal d) {
      return d.toJavaBigDecimal();
    }
    return (Number) v;
  }

  private void requireKind(IndexType type, IndexType wanted, String argument) {
    if (type != wanted) {
      throw new InvalidInputException(
          qualifiedName()
              + ": "
              + argument
              + " applies to index_type => '"
              + wanted
              + "' only, not '"
              + type
              + "'.");
    }
  }
}
