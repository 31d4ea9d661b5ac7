package dev.lancelot.spark.search;

import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.spark.LanceTable;
import dev.lancelot.spark.ScalaCollections;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.UnresolvedHint;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.internal.SQLConf;

/**
 * The {@code LANCE_SEARCH} hint (decision D65; SPEC S8, S9): search settings for the vector
 * searches a query's {@code ORDER BY <distance> LIMIT k} and {@code NEAREST BY} joins become, per
 * query instead of per session — <code>SELECT /*+ LANCE_SEARCH('nprobes=20', 'refine_factor=2')
 * *&#47; …</code>, or {@code df.hint("lance_search", "nprobes=20")}. Each parameter is one {@code
 * key=value} string; the keys are {@value #NPROBES}, {@value #REFINE_FACTOR} and {@value #EF},
 * positive integers. A hint's settings win over the session's ({@link
 * NearestOrderRule#NPROBES_CONF} …).
 *
 * <p>An analyzer rule: once the plan under the hint is resolved it replaces the hint with a {@link
 * SearchSettings} node carrying the settings, which the search rules read for the searches below it
 * (the innermost hint wins where hints nest) and {@link NearestOrderRule} removes. A hint with a
 * malformed or unknown setting, or with no lance table under it, fails the query naming the problem
 * rather than being ignored.
 */
public final class SearchHint extends Rule<LogicalPlan> {
  /** The hint's name (case-insensitive). */
  public static final String NAME = "LANCE_SEARCH";

  static final String NPROBES = "nprobes";
  static final String REFINE_FACTOR = "refine_factor";
  static final String EF = "ef";
  private static final Set<String> KEYS = Set.of(NPROBES, REFINE_FACTOR, EF);

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    return rewrite(plan);
  }

  private static LogicalPlan rewrite(LogicalPlan node) {
    List<LogicalPlan> children = ScalaCollections.toJava(node.children());
    List<LogicalPlan> rewritten = new ArrayList<>(children.size());
    boolean changed = false;
    for (LogicalPlan child : children) {
      LogicalPlan r = rewrite(child);
      changed |= r != child;
      rewritten.add(r);
    }
    LogicalPlan current = changed ? node.withNewChildren(ScalaCollections.list(rewritten)) : node;
    if (current instanceof UnresolvedHint hint
        && hint.name().equalsIgnoreCase(NAME)
        && hint.child().resolved()
        && !bindingPending(hint.child())) {
      Map<String, Integer> settings = parse(ScalaCollections.toJava(hint.parameters()));
      if (!hasLanceTable(hint.child())) {
        throw new IllegalArgumentException(
            "The " + NAME + " hint has no lance table under it to apply its settings to");
      }
      return new SearchSettings(settings, hint.child());
    }
    return current;
  }

  private static boolean hasLanceTable(LogicalPlan node) {
    if (node instanceof DataSourceV2Relation relation && relation.table() instanceof LanceTable) {
      return true;
    }
    for (LogicalPlan child : ScalaCollections.toJava(node.children())) {
      if (hasLanceTable(child)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether a table under {@code node} is still a reference the analyzer binds to its relation
   * later in the same batch (Spark 4.1+ keeps a temporary view's tables as {@code
   * V2TableReference}s until then); the hint waits for the relations.
   */
  private static boolean bindingPending(LogicalPlan node) {
    if (node.getClass().getSimpleName().equals("V2TableReference")) {
      return true;
    }
    for (LogicalPlan child : ScalaCollections.toJava(node.children())) {
      if (bindingPending(child)) {
        return true;
      }
    }
    return false;
  }

  /** The hint's parameters as settings; refuses anything that is not {@code key=<integer>}. */
  static Map<String, Integer> parse(List<?> parameters) {
    if (parameters.isEmpty()) {
      throw new IllegalArgumentException(
          "The " + NAME + " hint needs settings, e.g. " + NAME + "('nprobes=20')");
    }
    Map<String, Integer> out = new LinkedHashMap<>();
    for (Object p : parameters) {
      Object value = p instanceof Literal l ? l.value() : p;
      String text = value == null ? "null" : value.toString().trim();
      int eq = text.indexOf('=');
      String key = eq < 0 ? text : text.substring(0, eq).trim().toLowerCase(Locale.ROOT);
      if (eq < 0 || !KEYS.contains(key)) {
        throw new IllegalArgumentException(
            "The "
                + NAME
                + " hint takes 'key=value' settings with keys "
                + String.join(", ", List.of(NPROBES, REFINE_FACTOR, EF))
                + "; got '"
                + text
                + "'");
      }
      String number = text.substring(eq + 1).trim();
      int n;
      try {
        n = Integer.parseInt(number);
      } catch (NumberFormatException e) {
        n = 0;
      }
      if (n < 1) {
        throw new IllegalArgumentException(
            "The " + NAME + " hint's " + key + " must be a positive integer; got '" + number + "'");
      }
      out.put(key, n);
    }
    return out;
  }

  /**
   * The search settings on {@code query}: the session's ({@link NearestOrderRule#NPROBES_CONF},
   * {@link NearestOrderRule#REFINE_CONF}, {@link NearestOrderRule#EF_CONF}) overridden by those of
   * the {@code LANCE_SEARCH} hints over the search ({@code hinted}, empty when none).
   */
  public static VectorQuery.Builder withSettings(
      VectorQuery.Builder query, Map<String, Integer> hinted) {
    SQLConf conf = SQLConf.get();
    Integer nprobes = setting(hinted, NPROBES, conf, NearestOrderRule.NPROBES_CONF);
    if (nprobes != null) {
      query.nprobes(nprobes);
    }
    Integer refine = setting(hinted, REFINE_FACTOR, conf, NearestOrderRule.REFINE_CONF);
    if (refine != null) {
      query.refineFactor(refine);
    }
    Integer ef = setting(hinted, EF, conf, NearestOrderRule.EF_CONF);
    if (ef != null) {
      query.ef(ef);
    }
    return query;
  }

  private static Integer setting(
      Map<String, Integer> hinted, String key, SQLConf conf, String confKey) {
    if (hinted.containsKey(key)) {
      return hinted.get(key);
    }
    String v = conf.getConfString(confKey, "");
    return v.isBlank() ? null : Integer.parseInt(v.trim());
  }
}
