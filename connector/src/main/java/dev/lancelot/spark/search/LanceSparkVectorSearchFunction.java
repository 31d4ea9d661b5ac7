package dev.lancelot.spark.search;

import dev.lancelot.engine.ClosestName;
import dev.lancelot.engine.query.InvalidQueryException;
import dev.lancelot.spark.SqlArguments;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import scala.collection.Seq;
import scala.runtime.AbstractFunction1;

/**
 * {@code VECTOR_SEARCH(table => 'lance.db.items', query_vector => array(...), vector_column =>
 * 'vector', num_results => 10, ...)}: the same search as {@link VectorSearchFunction}, under the
 * function and argument names lance-spark users know, so their queries run unchanged. Positionally
 * {@code VECTOR_SEARCH(table, query_vector, num_results)}. lance-spark's names map to lancelot's
 * ({@code query_vector} → {@code q}, {@code vector_column} → {@code column}, {@code num_results}
 * and {@code limit} → {@code k}, {@code distance_type} → {@code metric}, {@code
 * bypass_vector_index} → not {@code use_index}, {@code lower_bound}/{@code upper_bound} → {@code
 * distance_range}, {@code columns => array('*')} → every column); lancelot's own names are accepted
 * too. {@code vector_column} defaults to {@code vector} and {@code num_results} to 10, as in
 * lance-spark. The table may also be a dataset location. The table of names is in docs/sql.md.
 */
public final class LanceSparkVectorSearchFunction
    extends AbstractFunction1<Seq<Expression>, LogicalPlan> {
  public static final String NAME = "vector_search";
  public static final String USAGE =
      "VECTOR_SEARCH(table => 'catalog.db.table' or path, query_vector => "
          + "array(0.1, ...) or array(array(...), ...), vector_column => 'vector', num_results => 10 [, distance_type "
          + "=> 'l2', columns => array('id'), filter => 'sql', prefilter => false, nprobes => n, ef => n, refine_factor "
          + "=> n, bypass_vector_index => false, fast_search => false, with_row_id => false, lower_bound => x, "
          + "upper_bound => y, version => v]) - lance-spark's name for lance_vector_search: distributed Lance vector "
          + "search returning the global top-k per query vector";
  private static final String[] POSITIONAL = {"table", "query_vector", "num_results"};

  /** Every argument name accepted, each mapped to lancelot's name of the same parameter. */
  private static final Map<String, String> NAMES = new LinkedHashMap<>();

  static {
    NAMES.put("table", "path");
    NAMES.put("path", "path");
    NAMES.put("query_vector", "q");
    NAMES.put("q", "q");
    NAMES.put("vector_column", "column");
    NAMES.put("column", "column");
    NAMES.put("num_results", "k");
    NAMES.put("limit", "k");
    NAMES.put("k", "k");
    NAMES.put("distance_type", "metric");
    NAMES.put("metric", "metric");
    NAMES.put("bypass_vector_index", "use_index");
    NAMES.put("use_index", "use_index");
    NAMES.put("lower_bound", "lower_bound");
    NAMES.put("upper_bound", "upper_bound");
    for (String same :
        List.of(
            "columns",
            "filter",
            "prefilter",
            "version",
            "nprobes",
            "minimum_nprobes",
            "maximum_nprobes",
            "ef",
            "refine_factor",
            "fast_search",
            "with_row_id",
            "queries",
            "query_column")) {
      NAMES.put(same, same);
    }
  }

  @Override
  public LogicalPlan apply(Seq<Expression> arguments) {
    Map<String, Object> given =
        SqlArguments.parse(arguments, POSITIONAL, NAME, USAGE, InvalidQueryException::new);
    return VectorSearchFunction.plan(toLancelotNames(given), "VECTOR_SEARCH", USAGE);
  }

  /** The arguments under lancelot's names, with lance-spark's defaults filled in. */
  static Map<String, Object> toLancelotNames(Map<String, Object> given) {
    Map<String, Object> params = new LinkedHashMap<>();
    Map<String, String> givenAs = new LinkedHashMap<>();
    Float lower = null;
    Float upper = null;
    for (Map.Entry<String, Object> e : given.entrySet()) {
      String name = e.getKey();
      if (name.equals("offset")) {
        throw new InvalidQueryException(
            "Cannot run VECTOR_SEARCH: offset is not supported. Ask for num_results + "
                + "offset rows and skip in SQL instead: SELECT ... FROM VECTOR_SEARCH(...) ORDER BY _distance "
                + "LIMIT n OFFSET m.");
      }
      String target = NAMES.get(name);
      if (target == null) {
        throw new InvalidQueryException(
            "Cannot run VECTOR_SEARCH: unknown argument \""
                + name
                + "\". Did you mean \""
                + ClosestName.closest(name, NAMES.keySet())
                + "\"? Arguments: "
                + new TreeSet<>(NAMES.keySet())
                + ". Usage: "
                + USAGE);
      }
      String previous = givenAs.put(target, name);
      if (previous != null) {
        throw new InvalidQueryException(
            "Cannot run VECTOR_SEARCH: arguments \""
                + previous
                + "\" and \""
                + name
                + "\" are the same parameter; give one.");
      }
      Object value = e.getValue();
      switch (target) {
        case "use_index":
          if (!(value instanceof Boolean b)) {
            throw new InvalidQueryException(
                "Cannot run VECTOR_SEARCH: " + name + " must be true or false.");
          }
          params.put("use_index", name.equals("bypass_vector_index") ? !b : b);
          break;
        case "lower_bound":
          lower = bound(name, value);
          break;
        case "upper_bound":
          upper = bound(name, value);
          break;
        case "columns":
          if (!(value instanceof List<?> list && list.size() == 1 && "*".equals(list.get(0)))) {
            params.put("columns", value);
          }
          break;
        default:
          params.put(target, value);
      }
    }
    if (lower != null || upper != null) {
      List<Float> range = new ArrayList<>();
      range.add(lower);
      range.add(upper);
      params.put("distance_range", range);
    }
    params.putIfAbsent("column", "vector");
    return params;
  }

  private static Float bound(String name, Object value) {
    if (!(value instanceof Number n)) {
      throw new InvalidQueryException("Cannot run VECTOR_SEARCH: " + name + " must be a number.");
    }
    return n.floatValue();
  }
}
