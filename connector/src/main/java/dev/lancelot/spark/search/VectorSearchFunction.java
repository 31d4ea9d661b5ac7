package dev.lancelot.spark.search;

import dev.lancelot.engine.query.InvalidQueryException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedArgumentExpression;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.unsafe.types.UTF8String;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractFunction1;

/**
 * {@code lance_vector_search(path, column => 'vector', q => array(...), k => 3, ...)}: every
 * parameter of SPEC Q as a named argument ({@code metric, nprobes, minimum_nprobes,
 * maximum_nprobes, ef, refine_factor, use_index, filter, prefilter, fast_search, with_row_id,
 * columns, version}); or, positionally, {@code lance_vector_search(path, column, q, k)}. Returns
 * exactly the global top-k.
 */
public final class VectorSearchFunction extends AbstractFunction1<Seq<Expression>, LogicalPlan> {
  public static final String NAME = "lance_vector_search";
  public static final String USAGE = NAME + "(path, column => 'vector', q => array(0.1, ...), k => 10 [, metric => 'l2', "
      + "nprobes => n | minimum_nprobes => n, maximum_nprobes => m, ef => n, refine_factor => n, use_index => true, "
      + "filter => 'sql', prefilter => false, fast_search => false, with_row_id => false, columns => array('id'), "
      + "version => v]) - distributed Lance vector search returning the global top-k";
  private static final String[] POSITIONAL = {"path", "column", "q", "k"};

  @Override
  public LogicalPlan apply(Seq<Expression> arguments) {
    List<Expression> args = new ArrayList<>(CollectionConverters.asJava(arguments));
    Map<String, Object> params = new LinkedHashMap<>();
    int position = 0;
    for (Expression e : args) {
      if (e instanceof NamedArgumentExpression named) {
        params.put(named.key().toLowerCase(), value(named.key(), named.value()));
      } else {
        if (position >= POSITIONAL.length) {
          throw new InvalidQueryException("Cannot run " + NAME + ": too many positional arguments; name them, e.g. "
              + "k => 3. Usage: " + USAGE);
        }
        params.put(POSITIONAL[position], value(POSITIONAL[position], e));
        position++;
      }
    }
    Object path = params.remove("path");
    if (!(path instanceof String location)) {
      throw new InvalidQueryException("Cannot run " + NAME + ": the first argument must be the dataset path. Usage: "
          + USAGE);
    }
    Object version = params.remove("version");
    long v = version == null ? 0 : ((Number) version).longValue();
    SparkSession spark = SparkSession.active();
    return LanceVectorSearch.search(spark, location, v, dev.lancelot.engine.query.VectorQuery.fromMap(params))
        .queryExecution().analyzed();
  }

  private static Object value(String name, Expression e) {
    if (!e.foldable()) {
      throw new InvalidQueryException("Cannot run " + NAME + ": argument " + name + " must be a constant.");
    }
    return toJava(e.eval(null), e.dataType());
  }

  private static Object toJava(Object v, DataType type) {
    if (v instanceof UTF8String s) {
      return s.toString();
    }
    if (v instanceof ArrayData array && type instanceof ArrayType at) {
      List<Object> out = new ArrayList<>();
      Object[] values = array.toObjectArray(at.elementType());
      for (Object o : values) {
        out.add(toJava(o, at.elementType()));
      }
      return out;
    }
    if (v instanceof org.apache.spark.sql.types.Decimal d) {
      return d.toDouble();
    }
    return v;
  }
}
