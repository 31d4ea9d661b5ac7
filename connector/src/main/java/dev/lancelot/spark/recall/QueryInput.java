package dev.lancelot.spark.recall;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.size;

import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.query.eval.QuerySets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;

/**
 * The query vectors of a recall run, as a cached DataFrame {@code (_qid bigint, query_vector
 * array<float|double>)}: {@code _qid} is the vector's position in the query set (0, 1, …), so the
 * ground truth of a query set does not depend on how Spark partitions it.
 */
final class QueryInput {
  static final String QID = "_qid";
  static final String VECTOR = "query_vector";

  final Dataset<Row> frame;
  final long count;

  /** Identifies the query vectors: their number and a hash of every (position, vector). */
  final String identity;

  private QueryInput(Dataset<Row> frame, long count, String identity) {
    this.frame = frame;
    this.count = count;
    this.identity = identity;
  }

  /** Reads and checks the queries: every vector present and of {@code dimension}; at least one. */
  static QueryInput prepare(SparkSession spark, RecallSpec spec, int dimension, OutputFiles files) {
    String column = spec.effectiveQueryColumn();
    Dataset<Row> source;
    if (spec.queries() != null) {
      source = spec.queries();
    } else if (spec.queriesLocation() == null) {
      throw new RecallInputException(
          "Cannot evaluate recall: no query vectors given. Give a Lance dataset or an "
              + ".fvecs file of query vectors (--queries), or a DataFrame.");
    } else if (spec.queriesLocation().endsWith(".fvecs")) {
      source = fvecs(spark, spec, dimension, files);
      column = VECTOR;
    } else {
      try {
        source = spark.read().format("lance").load(spec.queriesLocation());
      } catch (RuntimeException e) {
        throw new RecallInputException(
            "Cannot evaluate recall: cannot read the query vectors at "
                + spec.queriesLocation()
                + " ("
                + e.getMessage()
                + "). Give a Lance dataset or an .fvecs file.",
            e);
      }
    }
    checkColumn(source.schema(), column, spec);
    Dataset<Row> vectors = source.select(col("`" + column.replace("`", "``") + "`").as(VECTOR));
    if (spec.limitQueries() > 0) {
      vectors = vectors.limit(spec.limitQueries());
    }
    DataType vectorType = vectors.schema().fields()[0].dataType();
    JavaRDD<Row> numbered =
        vectors.javaRDD().zipWithIndex().map(t -> RowFactory.create(t._2(), t._1().get(0)));
    StructType schema =
        new StructType().add(QID, DataTypes.LongType, false).add(VECTOR, vectorType, true);
    Dataset<Row> frame =
        spark.createDataFrame(numbered, schema).persist(StorageLevel.MEMORY_AND_DISK());
    // Checked here, before anything is written, rather than by the first search's tasks.
    Column nonFinite =
        expr("exists(" + VECTOR + ", x -> x IS NULL OR isnan(x) OR abs(x) = double('Infinity'))");
    List<Row> bad =
        frame
            .filter(col(VECTOR).isNull().or(size(col(VECTOR)).notEqual(dimension)).or(nonFinite))
            .select(col(QID), size(col(VECTOR)))
            .limit(1)
            .collectAsList();
    if (!bad.isEmpty()) {
      frame.unpersist();
      Row b = bad.get(0);
      String where =
          spec.queriesLocation() == null
              ? "column \"" + column + "\""
              : spec.queriesLocation().endsWith(".fvecs")
                  ? spec.queriesLocation()
                  : "column \"" + column + "\" of " + spec.queriesLocation();
      String what =
          b.isNullAt(1) || b.getInt(1) < 0
              ? "is null. Give a vector for every query."
              : b.getInt(1) != dimension
                  ? "has "
                      + b.getInt(1)
                      + " dimensions but column \""
                      + spec.column()
                      + "\" of the dataset holds "
                      + dimension
                      + "-dimensional vectors. Give query vectors of the searched "
                      + "column's dimension."
                  : "has a null, NaN or infinite value. Give finite query vectors.";
      throw new RecallInputException(
          "Cannot evaluate recall: query vector "
              + b.getLong(0)
              + " (counting from 0) of "
              + where
              + " "
              + what);
    }
    Row id = frame.selectExpr("count(*)", "bit_xor(xxhash64(" + QID + ", " + VECTOR + "))").first();
    long count = id.getLong(0);
    if (count == 0) {
      frame.unpersist();
      throw new RecallInputException(
          "Cannot evaluate recall: there are no query vectors"
              + (spec.queriesLocation() == null ? "" : " in " + spec.queriesLocation())
              + ". Give at least one.");
    }
    return new QueryInput(
        frame, count, count + " vectors, hash " + Long.toHexString(id.getLong(1)));
  }

  private static void checkColumn(StructType schema, String column, RecallSpec spec) {
    if (!Arrays.asList(schema.fieldNames()).contains(column)) {
      throw new RecallInputException(
          "Cannot evaluate recall: the queries"
              + (spec.queriesLocation() == null ? "" : " at " + spec.queriesLocation())
              + " have no column \""
              + column
              + "\". Their columns: "
              + Arrays.toString(schema.fieldNames())
              + ". Name the query vector column "
              + "(--query-column, query_column).");
    }
    DataType type = schema.apply(column).dataType();
    if (!(type instanceof ArrayType a)
        || !(a.elementType().equals(DataTypes.FloatType)
            || a.elementType().equals(DataTypes.DoubleType))) {
      throw new RecallInputException(
          "Cannot evaluate recall: the query column \""
              + column
              + "\" is "
              + type.simpleString()
              + ", not a vector (array of float or double). Name the query vector column "
              + "(--query-column, query_column).");
    }
  }

  private static Dataset<Row> fvecs(
      SparkSession spark, RecallSpec spec, int dimension, OutputFiles files) {
    String location = spec.queriesLocation();
    if (!files.exists(location)) {
      throw new RecallInputException(
          "Cannot evaluate recall: there is no query file at "
              + location
              + ". Give an existing .fvecs file or Lance dataset (--queries).");
    }
    float[][] vectors;
    try {
      vectors = QuerySets.parseFvecs(files.read(location), location, spec.limitQueries());
    } catch (LancelotException e) {
      throw new RecallInputException(e.getMessage(), e);
    }
    if (vectors[0].length != dimension) {
      throw new RecallInputException(
          "Cannot evaluate recall: the query vectors of "
              + location
              + " have "
              + vectors[0].length
              + " dimensions but column \""
              + spec.column()
              + "\" of the dataset holds "
              + dimension
              + "-dimensional vectors. Give query vectors of the searched column's dimension.");
    }
    List<Row> rows = new ArrayList<>(vectors.length);
    for (float[] v : vectors) {
      Float[] boxed = new Float[v.length];
      for (int i = 0; i < v.length; i++) {
        boxed[i] = v[i];
      }
      rows.add(RowFactory.create((Object) Arrays.asList(boxed)));
    }
    StructType schema =
        new StructType().add(VECTOR, DataTypes.createArrayType(DataTypes.FloatType, false), false);
    return spark.createDataFrame(rows, schema);
  }
}
