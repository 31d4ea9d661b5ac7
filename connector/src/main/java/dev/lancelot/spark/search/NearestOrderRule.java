package dev.lancelot.spark.search;

import dev.lancelot.engine.expr.Predicate;
import dev.lancelot.engine.expr.Predicates;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.spark.LanceTable;
import dev.lancelot.spark.ScalaCollections;
import dev.lancelot.spark.read.SparkPredicates;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.Ascending$;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.ExprId;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.NullsLast$;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.GlobalLimit;
import org.apache.spark.sql.catalyst.plans.logical.LocalLimit;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.plans.logical.Sort;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.catalyst.types.DataTypeUtils;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Strategy$;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Answers {@code SELECT … FROM <lance table> [WHERE …] ORDER BY <distance>(<vector column>,
 * <constant vector>) LIMIT k} with lancelot's distributed vector search (decision D65; SPEC S8):
 * the scan under the sort is replaced by a {@link VectorSearchRelation} of the top k, searched with
 * the index when one on the column has the function's metric and flat otherwise (SPEC Q3), the
 * WHERE as its prefilter (SPEC Q7). Spark's sort and limit stay above it, and the distance is still
 * the function's own, computed by Spark on those k rows, so the answer is the plain plan's wherever
 * the search is exact (flat, or probing every partition).
 *
 * <p>The distance is {@code lance.system.l2_distance}, {@code cosine_distance} or {@code
 * dot_distance} ordered {@code ASC}, or Spark 4.2's {@code vector_l2_distance} ({@code ASC}),
 * {@code vector_cosine_similarity} or {@code vector_inner_product} ({@code DESC}) — see {@link
 * Ranking} — in the ORDER BY itself or as a projected alias. The rule leaves the plan to Spark when
 * anything else is there: another sort key, a WHERE the engine cannot evaluate exactly, a column
 * that is not a data column, NULLs ordered first on a nullable vector column (Spark would return
 * the rows without a vector first; the search never returns them), a LIMIT above {@value
 * #DEFAULT_MAX_K} ({@link #MAX_K_CONF}). The search settings come from the session: {@link
 * #NPROBES_CONF}, {@link #REFINE_CONF}, {@link #EF_CONF}, or per query from a {@link SearchHint}
 * ({@code LANCE_SEARCH}); {@link #ENABLED_CONF} turns the rule off.
 *
 * <p>Installed by {@code LanceSparkExtensions} as a pre-CBO optimizer rule: it sees the plan after
 * operator optimization (the WHERE pushed onto the relation) and before scan pushdown.
 */
public final class NearestOrderRule extends Rule<LogicalPlan> {
  /** Session conf: whether ORDER BY distance LIMIT k is answered by the vector search (true). */
  public static final String ENABLED_CONF = "spark.lancelot.search.orderByLimit.enabled";

  /** Session conf: the largest LIMIT the search answers; Spark's sort answers larger ones. */
  public static final String MAX_K_CONF = "spark.lancelot.search.orderByLimit.maxK";

  /** Session conf: IVF partitions probed (SPEC Q4; nprobes); unset is the engine's default. */
  public static final String NPROBES_CONF = "spark.lancelot.search.nprobes";

  /** Session conf: refine factor (SPEC Q6); unset is no refine. */
  public static final String REFINE_CONF = "spark.lancelot.search.refineFactor";

  /** Session conf: HNSW search width (SPEC Q5); unset is the engine's default. */
  public static final String EF_CONF = "spark.lancelot.search.ef";

  static final int DEFAULT_MAX_K = 10_000;

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    boolean enabled = Boolean.parseBoolean(SQLConf.get().getConfString(ENABLED_CONF, "true"));
    return rewrite(plan, Map.of(), enabled);
  }

  /**
   * {@code node} with its top-k searches answered (when enabled) and every {@link SearchSettings}
   * node removed; {@code hinted} holds the settings of the hints above {@code node}.
   */
  private LogicalPlan rewrite(LogicalPlan node, Map<String, Integer> hinted, boolean enabled) {
    if (node instanceof SearchSettings s) {
      return rewrite(s.child(), merged(hinted, s), enabled);
    }
    if (enabled) {
      Optional<LogicalPlan> answered = answer(node, hinted);
      if (answered.isPresent()) {
        return answered.get();
      }
    }
    List<LogicalPlan> children = ScalaCollections.toJava(node.children());
    List<LogicalPlan> rewritten = new ArrayList<>(children.size());
    boolean changed = false;
    for (LogicalPlan child : children) {
      LogicalPlan r = rewrite(child, hinted, enabled);
      changed |= r != child;
      rewritten.add(r);
    }
    return changed ? node.withNewChildren(ScalaCollections.list(rewritten)) : node;
  }

  private static Map<String, Integer> merged(Map<String, Integer> outer, SearchSettings inner) {
    Map<String, Integer> m = new LinkedHashMap<>(outer);
    m.putAll(inner.settings());
    return m;
  }

  /** The node answered by the search, when it is a top-k by distance over a lance table. */
  private static Optional<LogicalPlan> answer(LogicalPlan node, Map<String, Integer> outerHints) {
    if (!(node instanceof GlobalLimit global)
        || !(global.child() instanceof LocalLimit local)
        || !(limit(global.limitExpr()) instanceof Integer k)
        || !k.equals(limit(local.limitExpr()))
        || k < 1
        || k > Integer.parseInt(SQLConf.get().getConfString(MAX_K_CONF, "" + DEFAULT_MAX_K))) {
      return Optional.empty();
    }
    Map<String, Integer> hinted = outerHints;
    LogicalPlan below = local.child();
    Project top = null;
    while (below instanceof SearchSettings s) {
      hinted = merged(hinted, s);
      below = s.child();
    }
    if (below instanceof Project p) {
      top = p;
      below = p.child();
    }
    while (below instanceof SearchSettings s) {
      hinted = merged(hinted, s);
      below = s.child();
    }
    if (!(below instanceof Sort sort) || !sort.global() || sort.order().size() != 1) {
      return Optional.empty();
    }
    List<LogicalPlan> chain = new ArrayList<>();
    List<Expression> conditions = new ArrayList<>();
    LogicalPlan n = sort.child();
    while (n instanceof Project || n instanceof Filter || n instanceof SearchSettings) {
      if (n instanceof Filter f) {
        conditions.add(f.condition());
      } else if (n instanceof SearchSettings s) {
        hinted = merged(hinted, s);
      }
      chain.add(n);
      n = n.children().head();
    }
    if (!(n instanceof DataSourceV2Relation relation)
        || !(relation.table() instanceof LanceTable table)) {
      return Optional.empty();
    }
    SortOrder order = sort.order().head();
    Optional<Ranking> found = Ranking.of(resolveAlias(order.child(), chain));
    if (found.isEmpty()) {
      return Optional.empty();
    }
    Ranking ranking = found.get();
    boolean ascending = order.direction() == Ascending$.MODULE$;
    if (ascending == ranking.similarity
        || !relation.outputSet().contains(ranking.column)
        || (order.nullOrdering() != NullsLast$.MODULE$ && ranking.column.nullable())) {
      return Optional.empty();
    }
    Optional<List<Predicate>> filter = prefilter(conditions, relation, table);
    if (filter.isEmpty()) {
      return Optional.empty();
    }
    Optional<List<Attribute>> columns = requiredColumns(chain, order, top, relation, table);
    if (columns.isEmpty()) {
      return Optional.empty();
    }
    List<String> names = new ArrayList<>();
    columns.get().forEach(a -> names.add(a.name()));
    VectorQuery.Builder query =
        VectorQuery.builder(ranking.column.name())
            .vector(ranking.query())
            .k(k)
            .metric(ranking.metric)
            .columns(names);
    if (!filter.get().isEmpty()) {
      query.filter(Predicates.and(filter.get()).toSql()).prefilter(true);
    }
    PlannedSearch search =
        PlannedSearch.plan(
            table.location(),
            table.datasetVersion(),
            SearchHint.withSettings(query, hinted).build(),
            table.hadoopConf(),
            "ORDER BY "
                + ranking.sql
                + "("
                + ranking.column.name()
                + ", <query>) "
                + (ascending ? "ASC" : "DESC")
                + " LIMIT "
                + k);
    Optional<List<Attribute>> output = searchOutput(search.schema(), columns.get());
    if (output.isEmpty()) {
      return Optional.empty();
    }
    LogicalPlan replaced = new VectorSearchRelation(search, ScalaCollections.list(output.get()));
    for (int i = chain.size() - 1; i >= 0; i--) {
      if (chain.get(i) instanceof Project p) {
        replaced = p.withNewChildren(ScalaCollections.list(List.of(replaced)));
      }
    }
    replaced = sort.withNewChildren(ScalaCollections.list(List.of(replaced)));
    if (top != null) {
      replaced = top.withNewChildren(ScalaCollections.list(List.of(replaced)));
    }
    replaced = local.withNewChildren(ScalaCollections.list(List.of(replaced)));
    return Optional.of(global.withNewChildren(ScalaCollections.list(List.of(replaced))));
  }

  private static Object limit(Expression e) {
    return e instanceof Literal l && l.dataType().equals(DataTypes.IntegerType) ? l.value() : null;
  }

  /** The aliased expression when {@code e} is an alias projected below the sort. */
  private static Expression resolveAlias(Expression e, List<LogicalPlan> chain) {
    if (!(e instanceof Attribute a)) {
      return e;
    }
    ExprId id = a.exprId();
    for (LogicalPlan p : chain) {
      if (p instanceof Project project) {
        for (NamedExpression ne : ScalaCollections.toJava(project.projectList())) {
          if (ne instanceof Alias alias && alias.exprId().equals(id)) {
            return resolveAlias(alias.child(), chain);
          }
        }
      }
    }
    return e;
  }

  /**
   * The WHERE's conjuncts as engine predicates (none for no WHERE); empty when a part of it is not
   * over the table's columns or has no exact engine form (Spark answers the query then).
   */
  static Optional<List<Predicate>> prefilter(
      List<Expression> conditions, DataSourceV2Relation relation, LanceTable table) {
    List<Predicate> terms = new ArrayList<>();
    List<Expression> conjuncts = new ArrayList<>();
    conditions.forEach(c -> splitConjuncts(c, conjuncts));
    for (Expression c : conjuncts) {
      if (!c.deterministic() || !c.references().subsetOf(relation.outputSet())) {
        return Optional.empty();
      }
      scala.Option<org.apache.spark.sql.connector.expressions.filter.Predicate> v2 =
          DataSourceV2Strategy$.MODULE$.translateFilterV2(c);
      if (v2.isEmpty()) {
        return Optional.empty();
      }
      Optional<SparkPredicates.Translation> t =
          SparkPredicates.translate(v2.get(), table.arrowSchema());
      if (t.isEmpty() || !t.get().exact()) {
        return Optional.empty();
      }
      terms.add(t.get().predicate());
    }
    return Optional.of(terms);
  }

  private static void splitConjuncts(Expression e, List<Expression> out) {
    if (e instanceof And and) {
      splitConjuncts(and.left(), out);
      splitConjuncts(and.right(), out);
    } else {
      out.add(e);
    }
  }

  /**
   * The table's columns the plan above the relation reads, in the relation's order; empty when one
   * is not a data column of the table (a metadata column) or a projection is not deterministic.
   */
  private static Optional<List<Attribute>> requiredColumns(
      List<LogicalPlan> chain,
      SortOrder order,
      Project top,
      DataSourceV2Relation relation,
      LanceTable table) {
    Set<ExprId> used = new HashSet<>();
    boolean projected = false;
    List<Expression> expressions = new ArrayList<>();
    expressions.add(order);
    for (LogicalPlan p : chain) {
      if (p instanceof Project project) {
        projected = true;
        addAll(expressions, project.projectList());
      }
    }
    if (top != null) {
      addAll(expressions, top.projectList());
    }
    for (Expression e : expressions) {
      if (!e.deterministic()) {
        return Optional.empty();
      }
      ScalaCollections.toJava(e.references()).forEach(a -> used.add(a.exprId()));
    }
    Set<String> dataColumns = new HashSet<>(List.of(table.schema().fieldNames()));
    List<Attribute> out = new ArrayList<>();
    for (Attribute a : ScalaCollections.toJava(relation.output())) {
      if (projected && !used.contains(a.exprId())) {
        continue;
      }
      if (!dataColumns.contains(a.name())) {
        return Optional.empty();
      }
      out.add(a);
    }
    return Optional.of(out);
  }

  /** Named expressions are expressions (a Scala trait over a class, which Java does not see). */
  private static void addAll(
      List<Expression> out, scala.collection.Seq<NamedExpression> expressions) {
    for (NamedExpression e : ScalaCollections.toJava(expressions)) {
      out.add((Expression) e);
    }
  }

  /**
   * The search relation's output: the relation's own attributes for the result columns (so the plan
   * above reads them unchanged) and a new {@code _distance}, in the order of the search's schema;
   * empty if the two do not line up.
   */
  private static Optional<List<Attribute>> searchOutput(
      StructType schema, List<Attribute> columns) {
    Map<String, Attribute> byName = new LinkedHashMap<>();
    columns.forEach(a -> byName.put(a.name(), a));
    List<Attribute> out = new ArrayList<>();
    for (StructField f : schema.fields()) {
      Attribute a = byName.remove(f.name());
      if (a == null && f.name().equals("_distance")) {
        out.addAll(
            ScalaCollections.toJava(
                DataTypeUtils.toAttributes(new StructType(new StructField[] {f}))));
      } else if (a == null || !a.dataType().sameType(f.dataType())) {
        return Optional.empty();
      } else {
        out.add(a);
      }
    }
    return byName.isEmpty() ? Optional.of(out) : Optional.empty();
  }
}
