package dev.lancelot.spark.procedures;

import dev.lancelot.spark.LanceCatalog;
import dev.lancelot.spark.index.LanceIndexBuilder;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code CALL lance.system.optimize_index(table => 'db.items', name => 'vector_idx' [, retrain =>
 * true])}: brings an index up to date with {@link LanceIndexBuilder#optimize} — for a vector index
 * a delta segment for the fragments appended since it was built, encoded from Spark with the
 * index's model, or with {@code retrain} a new model over every fragment; for a BTree new segments
 * over the appended fragments, or with {@code retrain} a rebuild — and returns the index's row as
 * {@code create_index} does (no metric for a BTree).
 */
final class OptimizeIndexProcedure extends LanceProcedure {
  static final String NAME = "optimize_index";
  private static final String SUMMARY =
      "Indexes the fragments appended since an index was built (a vector index: one delta segment; a "
          + "BTree: segments over them), or with retrain => true builds it anew over every fragment; "
          + "the version stays when nothing is unindexed.";

  private static final Parameter[] PARAMETERS = {
    required("table", DataTypes.StringType),
    required("name", DataTypes.StringType),
    optional("retrain", DataTypes.BooleanType, "false"),
  };

  OptimizeIndexProcedure(LanceCatalog catalog) {
    super(catalog, NAME, SUMMARY, PARAMETERS, CreateIndexProcedure.VECTOR_INDEX);
  }

  @Override
  protected List<InternalRow> run(SparkSession spark, ProcedureArguments args) {
    String location = tableLocation(args);
    String name = args.string("name");
    long version = LanceIndexBuilder.optimize(spark, location, name, args.bool("retrain", false));
    return List.of(CreateIndexProcedure.describe(location, version, name));
  }
}
