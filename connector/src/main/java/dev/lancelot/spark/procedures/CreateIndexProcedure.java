package dev.lancelot.spark.procedures;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.index.IndexStatistics;
import dev.lancelot.engine.index.vector.VectorIndexDescription;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
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
 * {@code CALL lance.system.create_index(table => 'db.items', column => 'vector', index_type =>
 * 'IVF_PQ', metric => 'l2', num_partitions => 256, num_sub_vectors => 16, ...)}: builds a vector
 * index from Spark with {@link LanceIndexBuilder#createIndex} (SPEC S7: trained on the driver,
 * segments written by executor tasks, one commit) and returns one row describing it.
 */
final class CreateIndexProcedure extends LanceProcedure {
  static final String NAME = "create_index";
  private static final String SUMMARY =
      "Builds a vector index (IVF_FLAT, IVF_PQ, IVF_SQ, IVF_RQ, IVF_HNSW_FLAT, IVF_HNSW_SQ, IVF_HNSW_PQ) from Spark and "
          + "commits it as one new version; parameters not given keep Lance 7's defaults.";

  /** The row describing a vector index after a build or an optimize. */
  static final StructType VECTOR_INDEX =
      new StructType()
          .add("name", DataTypes.StringType, false)
          .add("index_type", DataTypes.StringType, false)
          .add("metric", DataTypes.StringType, true)
          .add("version", DataTypes.LongType, false)
          .add("segments", DataTypes.IntegerType, false)
          .add("indexed_fragments", DataTypes.IntegerType, false)
          .add("indexed_rows", DataTypes.LongType, false)
          .add("unindexed_rows", DataTypes.LongType, false);

  private static final Parameter[] PARAMETERS = {
    required("table", DataTypes.StringType),
    required("column", DataTypes.StringType),
    required("index_type", DataTypes.StringType),
    optional("metric", DataTypes.StringType),
    optional("num_partitions", DataTypes.LongType),
    optional("num_sub_vectors", DataTypes.LongType),
    optional("num_bits", DataTypes.LongType),
    optional("m", DataTypes.LongType),
    optional("ef_construction", DataTypes.LongType),
    optional("max_level", DataTypes.LongType),
    optional("sample_rate", DataTypes.LongType),
    optional("max_iterations", DataTypes.LongType),
    optional("seed", DataTypes.LongType),
    optional("name", DataTypes.StringType),
    optional("replace", DataTypes.BooleanType),
  };

  CreateIndexProcedure(LanceCatalog catalog) {
    super(catalog, NAME, SUMMARY, PARAMETERS, VECTOR_INDEX);
  }

  @Override
  protected List<InternalRow> run(SparkSession spark, ProcedureArguments args) {
    String location = tableLocation(args);
    String column = args.string("column");
    VectorIndexSpec spec = VectorIndexSpec.fromMap(args.given("table", "column"));
    long version = LanceIndexBuilder.createIndex(spark, location, column, spec);
    return List.of(describe(location, version, spec.nameFor(column)));
  }

  /** {@link #VECTOR_INDEX} of index {@code name} at {@code version} of the dataset. */
  static InternalRow describe(String location, long version, String name) {
    try (Dataset ds =
        Dataset.open(
            location,
            OpenOptions.defaults()
                .withVersion(version)
                .withHadoopConf(LancePathCatalog.hadoopConf()))) {
      if (!ds.indexes().segments(name).get(0).type().isVector()) {
        // optimize_index of a BTree: the same columns, no metric
        IndexStatistics st = IndexStatistics.of(ds, name);
        return new GenericInternalRow(
            new Object[] {
              UTF8String.fromString(st.name()),
              UTF8String.fromString(st.type().name()),
              null,
              version,
              st.segments(),
              Math.toIntExact(st.indexedFragments()),
              st.indexedRows(),
              st.unindexedRows()
            });
      }
      VectorIndexDescription d = VectorIndexes.describe(ds, name);
      return new GenericInternalRow(
          new Object[] {
            UTF8String.fromString(d.name()),
            UTF8String.fromString(d.type().name()),
            UTF8String.fromString(d.metric().lanceName()),
            version,
            d.segments().size(),
            d.indexedFragments().size(),
            d.indexedRows(),
            d.unindexedRows()
          });
    }
  }
}
