package dev.lancelot.spark.search;

import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.spark.ScalaCollections;
import dev.lancelot.spark.functions.DistanceFunction;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.catalyst.expressions.ApplyFunctionExpression;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.objects.StaticInvoke;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataTypes;

/**
 * A distance or similarity between a vector column and a constant query vector, as Spark's
 * optimized plan holds it (decision D65): lancelot's {@code lance.system.l2_distance}, {@code
 * cosine_distance} and {@code dot_distance} (an {@link ApplyFunctionExpression} of {@link
 * DistanceFunction}), or, on Spark 4.2 and later, Spark's own {@code vector_l2_distance}, {@code
 * vector_cosine_similarity} and {@code vector_inner_product}, which the optimizer has replaced by a
 * {@link StaticInvoke} of {@code VectorFunctionImplUtils} by the time lancelot's rules see them
 * (matched by class name, so the same code compiles on lines without them).
 */
final class Ranking {
  private static final String SPARK_VECTOR_FUNCTIONS =
      "org.apache.spark.sql.catalyst.expressions.VectorFunctionImplUtils";

  /** The search metric that ranks as the expression does. */
  final DistanceMetric metric;

  /** True when larger values are nearer (ranked by {@code DESC}). */
  final boolean similarity;

  /** The function's name, for EXPLAIN. */
  final String sql;

  /** The vector column. */
  final Attribute column;

  private final float[] query;

  private Ranking(
      DistanceMetric metric, boolean similarity, String sql, Attribute column, float[] query) {
    this.metric = metric;
    this.similarity = similarity;
    this.sql = sql;
    this.column = column;
    this.query = query;
  }

  /** The query vector. */
  float[] query() {
    return query.clone();
  }

  /**
   * The ranking {@code e} computes, when it is one of the functions over a column and a constant.
   */
  static Optional<Ranking> of(Expression e) {
    if (e instanceof ApplyFunctionExpression f) {
      Optional<DistanceMetric> metric = DistanceFunction.metricOf(f.function());
      if (metric.isEmpty()) {
        return Optional.empty();
      }
      return operands(
          metric.get(), false, f.function().canonicalName(), ScalaCollections.toJava(f.children()));
    }
    if (e instanceof StaticInvoke s
        && s.staticObject().getName().equals(SPARK_VECTOR_FUNCTIONS)
        && s.arguments().size() == 3) {
      List<Expression> args = ScalaCollections.toJava(s.arguments()).subList(0, 2);
      return switch (s.functionName()) {
        case "vectorL2Distance" -> operands(DistanceMetric.L2, false, "vector_l2_distance", args);
        case "vectorCosineSimilarity" ->
            operands(DistanceMetric.COSINE, true, "vector_cosine_similarity", args);
        case "vectorInnerProduct" ->
            operands(DistanceMetric.DOT, true, "vector_inner_product", args);
        default -> Optional.empty();
      };
    }
    return Optional.empty();
  }

  private static Optional<Ranking> operands(
      DistanceMetric metric, boolean similarity, String sql, List<Expression> args) {
    if (args.size() != 2) {
      return Optional.empty();
    }
    for (int i = 0; i < 2; i++) {
      Expression column = args.get(i);
      Expression constant = args.get(1 - i);
      if (column instanceof Attribute a && constant.foldable()) {
        Optional<float[]> q = constantVector(constant);
        if (q.isPresent()) {
          return Optional.of(new Ranking(metric, similarity, sql, a, q.get()));
        }
      }
    }
    return Optional.empty();
  }

  /**
   * The constant's value as float32, when it is a non-null array of float or double without a null
   * element; otherwise the function's answer is Spark's to give (NULL, or its error).
   */
  private static Optional<float[]> constantVector(Expression constant) {
    if (!(constant.dataType() instanceof ArrayType t)
        || !(t.elementType().equals(DataTypes.FloatType)
            || t.elementType().equals(DataTypes.DoubleType))) {
      return Optional.empty();
    }
    Object value = constant.eval(null);
    if (!(value instanceof ArrayData data) || data.numElements() == 0) {
      return Optional.empty();
    }
    boolean floats = t.elementType().equals(DataTypes.FloatType);
    float[] q = new float[data.numElements()];
    for (int i = 0; i < q.length; i++) {
      if (data.isNullAt(i)) {
        return Optional.empty();
      }
      q[i] = floats ? data.getFloat(i) : (float) data.getDouble(i);
      if (!Float.isFinite(q[i])) {
        return Optional.empty();
      }
    }
    return Optional.of(q);
  }
}
