package dev.lancelot.spark.search;

import dev.lancelot.engine.query.plan.SearchPlan;
import org.apache.spark.sql.connector.read.InputPartition;

/** One unit of a planned vector search (SPEC S4): the plan travels, the unit is picked by index. */
public record VectorSearchPartition(SearchPlan plan, int unitIndex) implements InputPartition {
  public String unitId() {
    return plan.units().get(unitIndex).id();
  }
}
