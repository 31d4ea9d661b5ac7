package dev.lancelot.spark.search;

import dev.lancelot.spark.ScalaCollections;
import dev.lancelot.spark.scalashim.LeafLogicalPlan;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.analysis.MultiInstanceRelation;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.types.DataTypeUtils;
import scala.collection.Seq;

/**
 * The logical plan node of a vector search: a leaf whose output is the search's answer, planned by
 * {@link VectorSearchStrategy} as a {@link VectorSearchExec} (one Spark task per search task, the
 * merge on the driver). Projections, filters, joins and sorts above it are Spark's own operators.
 * Its size estimate is tiny (at most k rows per query vector), so a join with it broadcasts it.
 */
public final class VectorSearchRelation extends LeafLogicalPlan implements MultiInstanceRelation {
  private static final long serialVersionUID = 1L;
  private final transient PlannedSearch search;
  private final scala.collection.immutable.List<Attribute> output;

  /** Public for Spark, which copies plan nodes through their public constructor. */
  public VectorSearchRelation(PlannedSearch search, Seq<? extends Attribute> output) {
    this.search = search;
    this.output = ScalaCollections.list(ScalaCollections.toJava(output));
  }

  /** A node with fresh output attributes for {@code search}'s answer. */
  static VectorSearchRelation of(PlannedSearch search) {
    return new VectorSearchRelation(search, DataTypeUtils.toAttributes(search.schema()));
  }

  PlannedSearch search() {
    return search;
  }

  @Override
  public scala.collection.immutable.List<Attribute> output() {
    return output;
  }

  @Override
  public scala.collection.immutable.List<LogicalPlan> children() {
    return ScalaCollections.empty();
  }

  /** The same search with new attribute ids, for a query that reads it twice (a self-join). */
  @Override
  public LogicalPlan newInstance() {
    List<Attribute> fresh = new ArrayList<>();
    ScalaCollections.toJava(output).forEach(a -> fresh.add(a.newInstance()));
    return new VectorSearchRelation(search, ScalaCollections.list(fresh));
  }

  @Override
  public String nodeName() {
    return "LanceVectorSearch";
  }

  @Override
  public String simpleString(int maxFields) {
    return search.name() + " " + output.mkString("[", ", ", "]");
  }

  @Override
  public int productArity() {
    return 2;
  }

  @Override
  public Object productElement(int n) {
    return switch (n) {
      case 0 -> search;
      case 1 -> output;
      default -> throw new IndexOutOfBoundsException(n);
    };
  }

  @Override
  public boolean canEqual(Object that) {
    return that instanceof VectorSearchRelation;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof VectorSearchRelation r && r.search == search && r.output.equals(output);
  }

  @Override
  public int hashCode() {
    return System.identityHashCode(search) * 31 + output.hashCode();
  }
}
