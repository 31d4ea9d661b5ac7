package dev.lancelot.spark.search;

import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.index.text.FullTextQuery;
import dev.lancelot.engine.index.text.TextQuery;
import dev.lancelot.spark.LanceCatalog;
import dev.lancelot.spark.LancePathCatalog;
import dev.lancelot.spark.SqlArguments;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import scala.collection.Seq;
import scala.runtime.AbstractFunction1;

/**
 * {@code lance_fts_search(table, column => 'text', query => 'words', k => 10, ...)}: a full-text
 * match query over a string column with an inverted index (decision D71, SPEC T6), where {@code
 * table} is a dataset location or a table of a {@link LanceCatalog} configured in the session.
 * Named arguments: {@code operator} ({@code 'OR'}, the default, or {@code 'AND'}), {@code filter},
 * {@code prefilter}, {@code fast_search}, {@code columns}, {@code with_row_id}, {@code version};
 * positionally, {@code lance_fts_search(table, column, query, k)}. {@code query_json} takes a query
 * tree in Lance's JSON form instead of {@code column}, {@code query} and {@code operator} (match,
 * multi_match, boolean, boost; decision D80). Returns the global top-k with {@code _score} (Lance's
 * BM25), one Spark task per partition of the index, merged on the driver.
 */
public final class FullTextSearchFunction extends AbstractFunction1<Seq<Expression>, LogicalPlan> {
  public static final String NAME = "lance_fts_search";
  public static final String USAGE =
      NAME
          + "(path or 'catalog.db.table', column => 'text', query => 'words', k => 10 [, operator =>"
          + " 'OR' | 'AND', filter => 'sql', prefilter => false, fast_search => false, columns =>"
          + " array('id'), with_row_id => false, version => v] | query_json => '{\"boolean\":"
          + " ...}' instead of column, query, operator) - distributed Lance full-text search"
          + " (BM25 _score) returning the global top-k";
  private static final String[] POSITIONAL = {"path", "column", "query", "k"};
  private static final Set<String> KNOWN =
      Set.of(
          "path",
          "column",
          "query",
          "k",
          "operator",
          "filter",
          "prefilter",
          "fast_search",
          "columns",
          "with_row_id",
          "version",
          "query_json");

  @Override
  public LogicalPlan apply(Seq<Expression> arguments) {
    Map<String, Object> params =
        SqlArguments.parse(arguments, POSITIONAL, NAME, USAGE, InvalidInputException::new);
    for (String name : params.keySet()) {
      if (!KNOWN.contains(name)) {
        throw error("unknown argument " + name);
      }
    }
    if (!(params.get("path") instanceof String target)) {
      throw error("the first argument must be the dataset path or the name of a table");
    }
    SparkSession spark = SparkSession.active();
    String location =
        LancePathCatalog.qualify(LanceCatalog.sessionTableLocation(spark, target).orElse(target));
    long version = params.get("version") == null ? 0 : number(params, "version");
    FullTextSearchRelation relation =
        FullTextSearchRelation.of(
            FullTextSearchRelation.plan(
                location, version, query(params), LancePathCatalog.hadoopConf()));
    LanceVectorSearch.installStrategy(spark);
    return relation;
  }

  /** The engine query of the arguments. */
  static FullTextQuery query(Map<String, Object> params) {
    FullTextQuery.Builder b;
    if (params.get("query_json") != null) {
      if (!(params.get("query_json") instanceof String json)) {
        throw error("query_json must be a string holding Lance's JSON form of a query");
      }
      for (String other : List.of("column", "query", "operator")) {
        if (params.get(other) != null) {
          throw error(
              "query_json replaces column, query and operator; " + other + " was given too");
        }
      }
      b = FullTextQuery.of(TextQuery.fromJson(json));
    } else {
      if (!(params.get("column") instanceof String column)) {
        throw error("column => '<string column>' (or query_json => '<json>') is required");
      }
      if (!(params.get("query") instanceof String text)) {
        throw error("query => '<text>' is required");
      }
      b = FullTextQuery.match(column, text);
    }
    if (params.get("k") != null) {
      long k = number(params, "k");
      if (k <= 0 || k > Integer.MAX_VALUE) {
        throw error("k must be a positive integer, not " + k);
      }
      b.k((int) k);
    }
    Object operator = params.get("operator");
    if (operator != null) {
      String op = operator.toString().toUpperCase(Locale.ROOT);
      if (!op.equals("OR") && !op.equals("AND")) {
        throw error("operator must be 'OR' or 'AND', not '" + operator + "'");
      }
      b.operator(FullTextQuery.Operator.valueOf(op));
    }
    Object filter = params.get("filter");
    if (filter != null) {
      if (!(filter instanceof String sql)) {
        throw error("filter must be a SQL string");
      }
      b.filter(sql);
    }
    b.prefilter(flag(params, "prefilter"));
    b.fastSearch(flag(params, "fast_search"));
    b.withRowId(flag(params, "with_row_id"));
    Object columns = params.get("columns");
    if (columns != null) {
      if (!(columns instanceof List<?> list)) {
        throw error("columns must be an array of column names");
      }
      b.columns(list.stream().map(String::valueOf).toList());
    }
    return b.build();
  }

  private static long number(Map<String, Object> params, String name) {
    Object v = params.get(name);
    if (v instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())) {
      return n.longValue();
    }
    throw error(name + " must be an integer, not " + v);
  }

  private static boolean flag(Map<String, Object> params, String name) {
    Object v = params.get(name);
    if (v == null) {
      return false;
    }
    if (v instanceof Boolean b) {
      return b;
    }
    throw error(name + " must be true or false, not " + v);
  }

  private static InvalidInputException error(String why) {
    return new InvalidInputException("Cannot run " + NAME + ": " + why + ". Usage: " + USAGE);
  }
}
