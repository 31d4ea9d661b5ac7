package dev.lancelot.spark.scalashim;

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import scala.collection.IndexedSeq;

/** A logical plan node without children, for the connector's logical nodes. */
public abstract class LeafLogicalPlan extends LogicalPlan {
  private static final long serialVersionUID = 1L;

  @Override
  public final LogicalPlan withNewChildrenInternal(IndexedSeq<LogicalPlan> newChildren) {
    return this;
  }
}
