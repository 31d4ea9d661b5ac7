package dev.lancelot.spark.search;

import dev.lancelot.spark.ScalaCollections;
import dev.lancelot.spark.scalashim.UnaryLogicalPlan;
import java.util.Map;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;

/**
 * Where a {@code LANCE_SEARCH} hint stood in a query ({@link SearchHint}): a node that passes its
 * child's rows through unchanged and carries the hint's search settings to the rules that plan
 * vector searches below it. {@link NearestOrderRule} removes every such node before Spark pushes
 * filters and columns into the scans, so none reaches physical planning.
 */
public final class SearchSettings extends UnaryLogicalPlan {
  private static final long serialVersionUID = 1L;

  private final Map<String, Integer> settings;
  private final LogicalPlan child;

  public SearchSettings(Map<String, Integer> settings, LogicalPlan child) {
    this.settings = Map.copyOf(settings);
    this.child = child;
  }

  /** The hint's settings: keys {@code nprobes}, {@code refine_factor}, {@code ef}. */
  public Map<String, Integer> settings() {
    return settings;
  }

  @Override
  public LogicalPlan child() {
    return child;
  }

  @Override
  protected LogicalPlan withChild(LogicalPlan newChild) {
    return new SearchSettings(settings, newChild);
  }

  @Override
  public scala.collection.immutable.List<Attribute> output() {
    return ScalaCollections.list(ScalaCollections.toJava(child.output()));
  }

  @Override
  public String nodeName() {
    return "LanceSearchSettings";
  }

  @Override
  public String simpleString(int maxFields) {
    return nodeName() + " " + settings;
  }

  @Override
  public int productArity() {
    return 2;
  }

  @Override
  public Object productElement(int n) {
    return switch (n) {
      case 0 -> settings;
      case 1 -> child;
      default -> throw new IndexOutOfBoundsException(n);
    };
  }

  @Override
  public boolean canEqual(Object that) {
    return that instanceof SearchSettings;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SearchSettings s && s.settings.equals(settings) && s.child.equals(child);
  }

  @Override
  public int hashCode() {
    return settings.hashCode() * 31 + child.hashCode();
  }
}
