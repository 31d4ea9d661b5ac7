package dev.lancelot.spark.search;

import dev.lancelot.engine.distributed.VectorSearchPlan;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.types.StructType;

/**
 * A NEAREST BY join planned as lancelot's batch search, as its plan nodes carry it (on the driver):
 * the engine's plan from the parameters alone, the result columns of the engine's rows ({@code
 * query_index} left out), where each right-side column of the join is among them, whether left rows
 * without a match are kept, and the right side's attributes of the join's output.
 */
final class NearestJoin {
  final VectorSearchPlan plan;
  final Configuration conf;
  final StructType results;
  private final int[] positions;
  final boolean outer;
  final String queryExpression;
  final scala.collection.immutable.List<Attribute> right;
  final String description;

  NearestJoin(
      VectorSearchPlan plan,
      Configuration conf,
      StructType results,
      int[] positions,
      boolean outer,
      String queryExpression,
      scala.collection.immutable.List<Attribute> right,
      String description) {
    this.plan = plan;
    this.conf = conf;
    this.results = results;
    this.positions = positions.clone();
    this.outer = outer;
    this.queryExpression = queryExpression;
    this.right = right;
    this.description = description;
  }

  /** The position among the result columns of the join's {@code i}-th right-side column. */
  int position(int i) {
    return positions[i];
  }
}
