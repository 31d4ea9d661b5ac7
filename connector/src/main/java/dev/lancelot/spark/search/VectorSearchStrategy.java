package dev.lancelot.spark.search;

import dev.lancelot.spark.ScalaCollections;
import java.util.List;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SparkStrategy;

/**
 * Plans a {@link VectorSearchRelation} as a {@link VectorSearchExec} (search tasks, merge on the
 * driver), and a {@link FullTextSearchRelation} as a {@link FullTextSearchExec}. Installed by
 * {@code LanceSparkExtensions}; {@link LanceVectorSearch} adds it to a session created without the
 * extension, through Spark's experimental extra strategies.
 */
public final class VectorSearchStrategy extends SparkStrategy {
  @Override
  public scala.collection.immutable.List<SparkPlan> apply(LogicalPlan plan) {
    List<SparkPlan> planned =
        plan instanceof VectorSearchRelation r
            ? List.of(new VectorSearchExec(r.search(), r.output()))
            : plan instanceof FullTextSearchRelation t
                ? List.<SparkPlan>of(new FullTextSearchExec(t.search(), t.output()))
                : List.of();
    return ScalaCollections.list(planned);
  }
}
