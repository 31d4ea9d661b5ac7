package dev.lancelot.spark.scalashim;

import org.apache.spark.sql.execution.SparkPlan;
import scala.collection.immutable.IndexedSeq;

/** A physical plan node without children, for the connector's physical nodes. */
public abstract class LeafExecPlan extends SparkPlan {
  private static final long serialVersionUID = 1L;

  @Override
  public final SparkPlan withNewChildrenInternal(IndexedSeq<SparkPlan> newChildren) {
    return this;
  }
}
