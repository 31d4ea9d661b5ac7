package dev.lancelot.spark.scalashim;

import dev.lancelot.spark.ScalaCollections;
import java.util.List;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import scala.collection.IndexedSeq;

/** A logical plan node with one child, for the connector's logical nodes. */
public abstract class UnaryLogicalPlan extends LogicalPlan {
  private static final long serialVersionUID = 1L;

  /** The node's one child. */
  public abstract LogicalPlan child();

  /** This node over {@code child} instead. */
  protected abstract LogicalPlan withChild(LogicalPlan child);

  @Override
  public final scala.collection.immutable.List<LogicalPlan> children() {
    return ScalaCollections.list(List.of(child()));
  }

  @Override
  public final LogicalPlan withNewChildrenInternal(IndexedSeq<LogicalPlan> newChildren) {
    return withChild(newChildren.apply(0));
  }
}
