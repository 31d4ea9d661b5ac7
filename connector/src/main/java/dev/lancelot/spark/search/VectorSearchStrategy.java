package dev.lancelot.spark.search;

import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.execution.FilterExec;
import org.apache.spark.sql.execution.ProjectExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SparkStrategy;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2ScanRelation;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Plans the scan of a {@link VectorSearchTable} as a {@link VectorSearchExec} (unit tasks, merge on
 * the driver) instead of Spark's batch scan. Installed by {@code LanceSparkExtensions}, and by
 * {@link LanceVectorSearch} into sessions created without the extension.
 */
public final class VectorSearchStrategy extends SparkStrategy {
  /**
   * Spark's own scan strategy plans projections and filters together with the relation below them,
   * so those are claimed here too when a search lies below: planned as Spark's project and filter
   * operators over the search.
   */
  @Override
  @SuppressWarnings("unchecked")
  public Seq<SparkPlan> apply(LogicalPlan plan) {
    SparkPlan planned = null;
    if (plan instanceof DataSourceV2ScanRelation r
        && r.scan() instanceof VectorSearchTable.SearchScan scan) {
      planned = new VectorSearchExec(scan, (Seq<Attribute>) (Seq<?>) r.output());
    } else if (plan instanceof Project p && overSearch(p.child())) {
      planned = new ProjectExec(p.projectList(), planLater(p.child()));
    } else if (plan instanceof Filter f && overSearch(f.child())) {
      planned = new FilterExec(f.condition(), planLater(f.child()));
    }
    return CollectionConverters.asScala(planned == null ? List.<SparkPlan>of() : List.of(planned))
        .toList();
  }

  private static boolean overSearch(LogicalPlan plan) {
    while (plan instanceof Project || plan instanceof Filter) {
      plan = plan instanceof Project p ? p.child() : ((Filter) plan).child();
    }
    return plan instanceof DataSourceV2ScanRelation r
        && r.scan() instanceof VectorSearchTable.SearchScan;
  }
}
