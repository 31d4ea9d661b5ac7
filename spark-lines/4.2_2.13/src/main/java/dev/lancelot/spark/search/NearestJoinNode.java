package dev.lancelot.spark.search;

import dev.lancelot.spark.ScalaCollections;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Seq;

/**
 * The logical node of a NEAREST BY join planned as lancelot's batch search ({@link
 * NearestByJoinRule}): its child is the left side, whose rows are the queries; its output is the
 * left side's columns ({@code carried}) followed by the right side's. The query expression and the
 * carried columns are its expressions, so Spark keeps what they read from the left side.
 */
public final class NearestJoinNode extends LogicalPlan {
  private static final long serialVersionUID = 1L;
  private final LogicalPlan left;
  private final transient NearestJoin search;
  private final scala.collection.immutable.List<Attribute> carried;
  private final Expression query;

  /** Public for Spark, which copies plan nodes through their public constructor. */
  public NearestJoinNode(
      LogicalPlan left, NearestJoin search, Seq<Attribute> carried, Expression query) {
    this.left = left;
    this.search = search;
    this.carried = ScalaCollections.list(ScalaCollections.toJava(carried));
    this.query = query;
  }

  NearestJoin search() {
    return search;
  }

  LogicalPlan left() {
    return left;
  }

  scala.collection.immutable.List<Attribute> carried() {
    return carried;
  }

  Expression query() {
    return query;
  }

  @Override
  public Seq<Attribute> output() {
    List<Attribute> out = new ArrayList<>(ScalaCollections.toJava(carried));
    out.addAll(ScalaCollections.toJava(search.right));
    return ScalaCollections.list(out);
  }

  @Override
  public Seq<LogicalPlan> children() {
    return ScalaCollections.list(List.of(left));
  }

  @Override
  public LogicalPlan withNewChildrenInternal(IndexedSeq<LogicalPlan> newChildren) {
    return new NearestJoinNode(newChildren.apply(0), search, carried, query);
  }

  @Override
  public String nodeName() {
    return "LanceNearestJoin";
  }

  @Override
  public String simpleString(int maxFields) {
    return search.description.lines().findFirst().orElse("") + " BY " + search.queryExpression;
  }

  @Override
  public int productArity() {
    return 4;
  }

  @Override
  public Object productElement(int n) {
    return switch (n) {
      case 0 -> left;
      case 1 -> search;
      case 2 -> carried;
      case 3 -> query;
      default -> throw new IndexOutOfBoundsException(n);
    };
  }

  @Override
  public boolean canEqual(Object that) {
    return that instanceof NearestJoinNode;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof NearestJoinNode n
        && n.search == search
        && n.left.equals(left)
        && n.carried.equals(carried)
        && n.query.equals(query);
  }

  @Override
  public int hashCode() {
    return System.identityHashCode(search) * 31 + left.hashCode();
  }
}
