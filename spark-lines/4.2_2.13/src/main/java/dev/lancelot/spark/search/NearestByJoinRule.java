package dev.lancelot.spark.search;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.distributed.VectorSearchPlan;
import dev.lancelot.engine.expr.Predicate;
import dev.lancelot.engine.expr.Predicates;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.spark.LanceTable;
import dev.lancelot.spark.ScalaCollections;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.ExprId;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.plans.Inner$;
import org.apache.spark.sql.catalyst.plans.LeftOuter$;
import org.apache.spark.sql.catalyst.plans.NearestBySimilarity$;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.NearestByJoin;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.plans.logical.SubqueryAlias;
import org.apache.spark.sql.catalyst.plans.logical.View;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Spark 4.2's {@code left JOIN right APPROX|EXACT NEAREST k BY DISTANCE|SIMILARITY <ranking>}
 * (SPARK-56395) against a lance table, planned as lancelot's batch search instead of Spark's
 * rewrite into a cross join and a top-k aggregate ({@code RewriteNearestByJoin}, an optimizer rule:
 * this analyzer rule runs before it). Each left row is a query with exactly its own top k (the
 * query frame search of SPEC S6); a WHERE on the right side is the prefilter; {@code APPROX} uses
 * the index when one on the column has the ranking's metric (the session's nprobes, refine factor
 * and ef), {@code EXACT} is flat KNN; {@code LEFT OUTER} keeps the left rows without a match (a
 * NULL query vector matches nothing). The ranking is one of the functions {@link Ranking} knows, of
 * the right side's vector column and an expression of the left side's columns, with {@code
 * DISTANCE} for distances and {@code SIMILARITY} for similarities. Anything else — and every join
 * whose right side is not a lance table — stays Spark's (decision D65, SPEC S9).
 */
public final class NearestByJoinRule extends Rule<LogicalPlan> {
  /** Session conf: whether NEAREST BY joins against lance tables are lancelot's search (true). */
  public static final String ENABLED_CONF = "spark.lancelot.search.nearestJoin.enabled";

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    if (!Boolean.parseBoolean(SQLConf.get().getConfString(ENABLED_CONF, "true"))) {
      return plan;
    }
    return rewrite(plan, Map.of());
  }

  /** {@code node} with its joins planned; {@code hinted}: the settings of the hints above it. */
  private LogicalPlan rewrite(LogicalPlan node, Map<String, Integer> hinted) {
    Map<String, Integer> here = hinted;
    if (node instanceof SearchSettings s) {
      here = new LinkedHashMap<>(hinted);
      here.putAll(s.settings());
    }
    List<LogicalPlan> children = ScalaCollections.toJava(node.children());
    List<LogicalPlan> rewritten = new ArrayList<>(children.size());
    boolean changed = false;
    for (LogicalPlan child : children) {
      LogicalPlan r = rewrite(child, here);
      changed |= r != child;
      rewritten.add(r);
    }
    LogicalPlan n = changed ? node.withNewChildren(ScalaCollections.list(rewritten)) : node;
    if (n instanceof NearestByJoin join) {
      return plan(join, here).orElse(n);
    }
    return n;
  }

  private static Optional<LogicalPlan> plan(NearestByJoin join, Map<String, Integer> outerHints) {
    Map<String, Integer> hinted = new LinkedHashMap<>(outerHints);
    boolean outer = join.joinType() == LeftOuter$.MODULE$;
    if (!outer && join.joinType() != Inner$.MODULE$) {
      return Optional.empty();
    }
    List<Expression> conditions = new ArrayList<>();
    LogicalPlan n = join.right();
    while (true) {
      if (n instanceof SubqueryAlias a) {
        n = a.child();
      } else if (n instanceof View v) {
        n = v.child();
      } else if (n instanceof SearchSettings s) {
        hinted.putAll(s.settings());
        n = s.child();
      } else if (n instanceof Filter f) {
        conditions.add(f.condition());
        n = f.child();
      } else if (n instanceof Project p && onlyAttributes(p)) {
        n = p.child();
      } else {
        break;
      }
    }
    if (!(n instanceof DataSourceV2Relation relation)
        || !(relation.table() instanceof LanceTable table)) {
      return Optional.empty();
    }
    Map<ExprId, String> columnNames = new HashMap<>();
    ScalaCollections.toJava(relation.output()).forEach(a -> columnNames.put(a.exprId(), a.name()));
    Optional<Ranking> found =
        Ranking.between(
            join.rankingExpression(),
            a -> columnNames.containsKey(a.exprId()),
            join.left().outputSet());
    if (found.isEmpty()) {
      return Optional.empty();
    }
    Ranking ranking = found.get();
    if (ranking.similarity != (join.direction() == NearestBySimilarity$.MODULE$)) {
      return Optional.empty();
    }
    Optional<List<Predicate>> filter = NearestOrderRule.prefilter(conditions, relation, table);
    if (filter.isEmpty()) {
      return Optional.empty();
    }
    List<Attribute> left = ScalaCollections.toJava(join.left().output());
    List<Attribute> all = ScalaCollections.toJava(join.output());
    List<Attribute> right = all.subList(left.size(), all.size());
    List<String> names = new ArrayList<>();
    for (Attribute a : right) {
      String name = columnNames.get(a.exprId());
      if (name == null || !Arrays.asList(table.schema().fieldNames()).contains(name)) {
        return Optional.empty();
      }
      names.add(name);
    }
    VectorQuery.Builder query =
        VectorQuery.builder(columnNames.get(ranking.column.exprId()))
            .k(join.numResults())
            .metric(ranking.metric)
            .columns(names)
            .useIndex(join.approx());
    if (!filter.get().isEmpty()) {
      query.filter(Predicates.and(filter.get()).toSql()).prefilter(true);
    }
    if (join.approx()) {
      SearchHint.withSettings(query, hinted);
    }
    Dataset ds = Dataset.openCached(table.location(), table.datasetVersion(), table.hadoopConf());
    VectorSearchPlan plan = VectorSearchPlan.plan(ds, query.buildParameters());
    StructType withIndex = PlannedSearch.resultSchema(ds, plan);
    // the engine's rows: query_index, the result columns, _distance
    StructField[] results = Arrays.copyOfRange(withIndex.fields(), 1, withIndex.fields().length);
    int[] positions = new int[right.size()];
    for (int i = 0; i < right.size(); i++) {
      positions[i] = -1;
      for (int j = 0; j < results.length; j++) {
        if (results[j].name().equals(names.get(i))
            && results[j].dataType().sameType(right.get(i).dataType())) {
          positions[i] = j;
        }
      }
      if (positions[i] < 0) {
        return Optional.empty();
      }
    }
    String description =
        "LanceNearestJoin["
            + plan.location()
            + ", version="
            + plan.version()
            + ", "
            + (join.approx() ? "APPROX" : "EXACT")
            + " NEAREST "
            + join.numResults()
            + " BY "
            + (ranking.similarity ? "SIMILARITY " : "DISTANCE ")
            + ranking.sql
            + ", join="
            + (outer ? "LEFT OUTER" : "INNER")
            + ", partitions="
            + plan.taskCount()
            + "]\n"
            + plan.explain();
    NearestJoin search =
        new NearestJoin(
            plan,
            table.hadoopConf(),
            new StructType(results),
            positions,
            outer,
            ranking.queryExpression.sql(),
            ScalaCollections.list(right),
            description);
    return Optional.of(
        new NearestJoinNode(join.left(), search, join.left().output(), ranking.queryExpression));
  }

  private static boolean onlyAttributes(Project p) {
    for (NamedExpression e : ScalaCollections.toJava(p.projectList())) {
      if (!(e instanceof Attribute)) {
        return false;
      }
    }
    return true;
  }
}
