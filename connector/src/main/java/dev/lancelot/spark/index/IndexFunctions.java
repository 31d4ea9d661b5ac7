package dev.lancelot.spark.index;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.index.vector.VectorIndexDescription;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.spark.LancePathCatalog;
import dev.lancelot.spark.SqlArguments;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import scala.collection.immutable.Seq;
import scala.runtime.AbstractFunction1;

/**
 * SQL entry points of {@link LanceIndexBuilder} (SPEC S7), as table functions that run when the
 * statement is analysed (like a command) and return one row describing the index afterwards:
 * {@code name, index_type, metric, version, segments, indexed_fragments, indexed_rows,
 * unindexed_rows}.
 *
 * <pre>
 * SELECT * FROM lance_create_index('s3a://bucket/items', column => 'vector', index_type => 'IVF_PQ',
 *     metric => 'l2', num_partitions => 256, num_sub_vectors => 16)
 * SELECT * FROM lance_optimize_index('s3a://bucket/items', name => 'vector_idx')
 * </pre>
 */
public final class IndexFunctions {
  public static final String CREATE = "lance_create_index";
  public static final String CREATE_USAGE = CREATE + "(path, column => 'vector', index_type => 'IVF_PQ' [, metric => "
      + "'l2', num_partitions => n, num_sub_vectors => n, num_bits => 8, m => 20, ef_construction => 150, "
      + "max_level => 7, sample_rate => 256, max_iterations => 50, seed => n, name => 'vector_idx', replace => false])"
      + " - builds a vector index from Spark (one encoding task per fragment) and commits it";
  public static final String OPTIMIZE = "lance_optimize_index";
  public static final String OPTIMIZE_USAGE = OPTIMIZE + "(path, name => 'vector_idx' [, retrain => false]) - indexes"
      + " the fragments appended since the index was built (a delta segment), or retrains it";

  static final StructType SCHEMA = new StructType()
      .add("name", DataTypes.StringType, false)
      .add("index_type", DataTypes.StringType, false)
      .add("metric", DataTypes.StringType, false)
      .add("version", DataTypes.LongType, false)
      .add("segments", DataTypes.IntegerType, false)
      .add("indexed_fragments", DataTypes.IntegerType, false)
      .add("indexed_rows", DataTypes.LongType, false)
      .add("unindexed_rows", DataTypes.LongType, false);

  private IndexFunctions() {}

  /** {@code lance_create_index}. */
  public static final class Create extends AbstractFunction1<Seq<Expression>, LogicalPlan> {
    @Override
    public LogicalPlan apply(Seq<Expression> arguments) {
      Map<String, Object> p = SqlArguments.parse(arguments, new String[] {"path", "column", "index_type"}, CREATE,
          CREATE_USAGE, LancelotException::new);
      String location = LancePathCatalog.qualify(required(p, "path", CREATE, CREATE_USAGE));
      String column = required(p, "column", CREATE, CREATE_USAGE);
      VectorIndexSpec spec = VectorIndexSpec.fromMap(p);
      SparkSession spark = SparkSession.active();
      long version = LanceIndexBuilder.createIndex(spark, location, column, spec);
      return describe(spark, location, version, spec.nameFor(column));
    }
  }

  /** {@code lance_optimize_index}. */
  public static final class Optimize extends AbstractFunction1<Seq<Expression>, LogicalPlan> {
    @Override
    public LogicalPlan apply(Seq<Expression> arguments) {
      Map<String, Object> p = SqlArguments.parse(arguments, new String[] {"path", "name", "retrain"}, OPTIMIZE,
          OPTIMIZE_USAGE, LancelotException::new);
      String location = LancePathCatalog.qualify(required(p, "path", OPTIMIZE, OPTIMIZE_USAGE));
      String name = required(p, "name", OPTIMIZE, OPTIMIZE_USAGE);
      Object retrain = p.remove("retrain");
      if (!p.isEmpty()) {
        throw new LancelotException("Cannot run " + OPTIMIZE + ": unknown arguments " + p.keySet() + ". Usage: "
            + OPTIMIZE_USAGE);
      }
      if (retrain != null && !(retrain instanceof Boolean)) {
        throw new LancelotException("Cannot run " + OPTIMIZE + ": retrain must be true or false, got " + retrain);
      }
      SparkSession spark = SparkSession.active();
      long version = LanceIndexBuilder.optimize(spark, location, name, Boolean.TRUE.equals(retrain));
      return describe(spark, location, version, name);
    }
  }

  private static String required(Map<String, Object> p, String key, String function, String usage) {
    Object v = p.remove(key);
    if (!(v instanceof String s) || s.isBlank()) {
      throw new LancelotException("Cannot run " + function + ": argument " + key + " (a string) is required. Usage: "
          + usage);
    }
    return s;
  }

  private static LogicalPlan describe(SparkSession spark, String location, long version, String name) {
    try (Dataset ds = Dataset.open(location, OpenOptions.defaults().withVersion(version)
        .withHadoopConf(LancePathCatalog.hadoopConf()))) {
      VectorIndexDescription d = VectorIndexes.describe(ds, name);
      Row row = RowFactory.create(d.name(), d.type().name(), d.metric().lanceName(), version, d.segments().size(),
          d.indexedFragments().size(), d.indexedRows(), d.unindexedRows());
      return spark.createDataFrame(List.of(row), SCHEMA).queryExecution().analyzed();
    }
  }
}
