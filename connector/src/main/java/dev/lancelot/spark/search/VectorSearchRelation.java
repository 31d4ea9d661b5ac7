package dev.lancelot.spark.search;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.analysis.MultiInstanceRelation;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.types.DataTypeUtils;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The logical plan node of a vector search: a leaf whose output is the search's answer, planned by
 * {@link VectorSearchStrategy} as a {@link VectorSearchExec} (one Spark task per search task, the
 * merge on the driver). Projections, filters, joins and sorts above it are Spark's own operators.
 * Its size estimate is tiny (at most k rows per query vector), so a join with it broadcasts it.
 */
public final class VectorSearchRelation extends LogicalPlan implements MultiInstanceRelation {
  private static final long serialVersionUID = 1L;
  private final transient PlannedSearch search;
  private final Seq<Attribute> output;

  /** Public for Spark, which copies plan nodes through their public constructor. */
  public VectorSearchRelation(PlannedSearch search, Seq<Attribute> output) {
    this.search = search;
    this.output = output;
  }

  /** A node with fresh output attributes for {@code search}'s answer. */
  static VectorSearchRelation of(PlannedSearch search) {
    List<Attribute> attributes = new ArrayList<>();
    CollectionConverters.asJava(DataTypeUtils.toAttributes(search.schema()))
        .forEach(attributes::add);
    return new VectorSearchRelation(search, CollectionConverters.asScala(attributes).toList());
  }

  PlannedSearch search() {
    return search;
  }

  @Override
  public Seq<Attribute> output() {
    return output;
  }

  @Override
  public Seq<LogicalPlan> children() {
    return CollectionConverters.asScala(List.<LogicalPlan>of()).toList();
  }

  @Override
  public LogicalPlan withNewChildrenInternal(
      scala.collection.immutable.IndexedSeq<LogicalPlan> newChildren) {
    return this;
  }

  /** The same search with new attribute ids, for a query that reads it twice (a self-join). */
  @Override
  public LogicalPlan newInstance() {
    List<Attribute> fresh = new ArrayList<>();
    CollectionConverters.asJava(output).forEach(a -> fresh.add(a.newInstance()));
    return new VectorSearchRelation(search, CollectionConverters.asScala(fresh).toList());
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
