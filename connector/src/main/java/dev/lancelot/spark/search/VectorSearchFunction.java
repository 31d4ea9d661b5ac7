package dev.lancelot.spark.search;

import dev.lancelot.engine.query.InvalidQueryException;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.spark.LanceCatalog;
import dev.lancelot.spark.SqlArguments;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import scala.collection.Seq;
import scala.runtime.AbstractFunction1;

/**
 * {@code lance_vector_search(path, column => 'vector', q => array(...), k => 3, ...)}, where {@code
 * path} is a dataset location or a table of a {@link LanceCatalog} configured in the session
 * ({@code 'lance.db.items'}: a multi-part name whose first part names that catalog): every
 * parameter of SPEC Q as a named argument ({@code metric, nprobes, minimum_nprobes,
 * maximum_nprobes, ef, refine_factor, use_index, filter, prefilter, fast_search, with_row_id,
 * columns, version}); or, positionally, {@code lance_vector_search(path, column, q, k)}. Returns
 * exactly the global top-k. With {@code queries => 'table'} (and {@code query_column}, default the
 * searched column's name) instead of {@code q}, searches every vector of that table or view and
 * returns its other columns with each query's top-k.
 */
public final class VectorSearchFunction extends AbstractFunction1<Seq<Expression>, LogicalPlan> {
  public static final String NAME = "lance_vector_search";
  public static final String USAGE =
      NAME
          + "(path or 'catalog.db.table', column => 'vector', q => array(0.1, ...), k => 10 [, metric => 'l2', "
          + "nprobes => n | minimum_nprobes => n, maximum_nprobes => m, ef => n, refine_factor => n, use_index => true, "
          + "filter => 'sql', prefilter => false, fast_search => false, with_row_id => false, columns => array('id'), "
          + "version => v] [, queries => 'table or view', query_column => 'embedding']) - distributed Lance vector search "
          + "returning the global top-k (per query vector of the queries table when given)";
  private static final String[] POSITIONAL = {"path", "column", "q", "k"};

  @Override
  public LogicalPlan apply(Seq<Expression> arguments) {
    return plan(
        SqlArguments.parse(arguments, POSITIONAL, NAME, USAGE, InvalidQueryException::new),
        NAME,
        USAGE);
  }

  /**
   * The search plan of the arguments by lancelot's names ({@code path}, Lance's {@code nearest}
   * parameters, {@code version}, {@code queries}, {@code query_column}); {@code function} and
   * {@code usage} name the SQL function in error messages.
   */
  static LogicalPlan plan(Map<String, Object> params, String function, String usage) {
    Object path = params.remove("path");
    if (!(path instanceof String target)) {
      throw new InvalidQueryException(
          "Cannot run "
              + function
              + ": the first argument must be the dataset path or "
              + "the name of a table of a LanceCatalog. Usage: "
              + usage);
    }
    Object version = params.remove("version");
    long v = version == null ? 0 : ((Number) version).longValue();
    SparkSession spark = SparkSession.active();
    String location = LanceCatalog.sessionTableLocation(spark, target).orElse(target);
    Object queries = params.remove("queries");
    Object queryColumn = params.remove("query_column");
    if (queries == null) {
      if (queryColumn != null) {
        throw new InvalidQueryException(
            "Cannot run "
                + function
                + ": query_column names the vector column of the "
                + "queries table, so it needs queries => '<table or view>'.");
      }
      return LanceVectorSearch.search(spark, location, v, VectorQuery.fromMap(params))
          .queryExecution()
          .analyzed();
    }
    if (!(queries instanceof String table)) {
      throw new InvalidQueryException(
          "Cannot run " + function + ": queries must name a table or view of query " + "vectors.");
    }
    String column =
        queryColumn == null ? String.valueOf(params.get("column")) : queryColumn.toString();
    return LanceVectorSearch.search(
            spark, location, v, spark.table(table), column, VectorQuery.parametersFromMap(params))
        .queryExecution()
        .analyzed();
  }
}
