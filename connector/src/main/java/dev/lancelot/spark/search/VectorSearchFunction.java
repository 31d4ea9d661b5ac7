package dev.lancelot.spark.search;

import dev.lancelot.engine.query.InvalidQueryException;
import dev.lancelot.spark.SqlArguments;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import scala.collection.immutable.Seq;
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
    Map<String, Object> params = SqlArguments.parse(arguments, POSITIONAL, NAME, USAGE, InvalidQueryException::new);
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
}
