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
  private static final String SPARK_EXPRESSIONS = "org.apache.spark.sql.catalyst.expressions.";
  private static final String SPARK_VECTOR_FUNCTIONS =
      SPARK_EXPRESSIONS + "VectorFunctionImplUtils";

  /** The search metric that ranks as the expression does. */
  final DistanceMetric metric;

  /** True when larger values are nearer (ranked by {@code DESC}). */
  final boolean similarity;

  /** The function's name, for EXPLAIN. */
  final String sql;

  /** The vector column. */
  final Attribute column;

  /** The query vector's expression. */
  final Expression queryExpression;

  private final float[] query;

  /** The two operands, while the function is matched. */
  private final List<Expression> args;

  private Ranking(
      DistanceMetric metric,
      boolean similarity,
      String sql,
      Attribute column,
      float[] query,
      Expression queryExpression) {
    this.metric = metric;
    this.similarity = similarity;
    this.sql = sql;
    this.column = column;
    this.query = query;
    this.queryExpression = queryExpression;
    this.args = List.of();
  }

  private Ranking(DistanceMetric metric, boolean similarity, String sql, List<Expression> args) {
    this.metric = metric;
    this.similarity = similarity;
    this.sql = sql;
    this.column = null;
    this.query = null;
    this.queryExpression = null;
    this.args = args;
  }

  /** The constant query vector; null for a ranking {@link #between} a column and queries. */
  float[] query() {
    return query == null ? null : query.clone();
  }

  /**
   * The ranking {@code e} computes, when it is one of the functions over a column and a constant.
   */
  static Optional<Ranking> of(Expression e) {
    Optional<Ranking> f = function(e);
    if (f.isEmpty()) {
      return Optional.empty();
    }
    for (int i = 0; i < 2; i++) {
      Expression column = f.get().args.get(i);
      Expression constant = f.get().args.get(1 - i);
      if (column instanceof Attribute a && constant.foldable()) {
        Optional<float[]> q = constantVector(constant);
        if (q.isPresent()) {
          Ranking r = f.get();
          return Optional.of(new Ranking(r.metric, r.similarity, r.sql, a, q.get(), constant));
        }
      }
    }
    return Optional.empty();
  }

  /**
   * The ranking {@code e} computes between a column {@code isColumn} accepts and a deterministic
   * vector expression over {@code queries} alone (a NEAREST BY join's {@code BY} expression):
   * {@link #query()} is then null and {@link #queryExpression} that expression.
   */
  static Optional<Ranking> between(
      Expression e,
      java.util.function.Predicate<Attribute> isColumn,
      org.apache.spark.sql.catalyst.expressions.AttributeSet queries) {
    Optional<Ranking> f = function(e);
    if (f.isEmpty()) {
      return Optional.empty();
    }
    for (int i = 0; i < 2; i++) {
      Expression column = f.get().args.get(i);
      Expression query = f.get().args.get(1 - i);
      if (column instanceof Attribute a
          && isColumn.test(a)
          && query.references().subsetOf(queries)
          && query.deterministic()
          && query.dataType() instanceof ArrayType t
          && (t.elementType().equals(DataTypes.FloatType)
              || t.elementType().equals(DataTypes.DoubleType))) {
        Ranking r = f.get();
        return Optional.of(new Ranking(r.metric, r.similarity, r.sql, a, null, query));
      }
    }
    return Optional.empty();
  }

  /**
   * The metric, direction and operands of {@code e} when it is one of the functions: lancelot's, or
   * Spark 4.2's before the optimizer replaces them ({@code VectorL2Distance}…) or after ({@code
   * StaticInvoke}).
   */
  private static Optional<Ranking> function(Expression e) {
    if (e instanceof ApplyFunctionExpression f) {
      Optional<DistanceMetric> metric = DistanceFunction.metricOf(f.function());
      return metric.map(
          m ->
              new Ranking(
                  m, false, f.function().canonicalName(), ScalaCollections.toJava(f.children())));
    }
    String name;
    if (e instanceof StaticInvoke s && s.staticObject().getName().equals(SPARK_VECTOR_FUNCTIONS)) {
      name = s.functionName();
    } else if (e.getClass().getName().startsWith(SPARK_EXPRESSIONS)) {
      name = e.getClass().getName().substring(SPARK_EXPRESSIONS.length());
    } else {
      return Optional.empty();
    }
    List<Expression> args = ScalaCollections.toJava(e.children());
    if (args.size() < 2) {
      return Optional.empty();
    }
    List<Expression> operands = args.subList(0, 2);
    return switch (name) {
      case "vectorL2Distance", "VectorL2Distance" ->
          Optional.of(new Ranking(DistanceMetric.L2, false, "vector_l2_distance", operands));
      case "vectorCosineSimilarity", "VectorCosineSimilarity" ->
          Optional.of(
              new Ranking(DistanceMetric.COSINE, true, "vector_cosine_similarity", operands));
      case "vectorInnerProduct", "VectorInnerProduct" ->
          Optional.of(new Ranking(DistanceMetric.DOT, true, "vector_inner_product", operands));
      default -> Optional.empty();
    };
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
