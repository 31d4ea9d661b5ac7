package dev.lancelot.spark.shim;

import dev.lancelot.spark.search.NearestByJoinRule;
import dev.lancelot.spark.search.NearestJoinExec;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.ExperimentalMethods;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.execution.SparkPlanner;
import org.apache.spark.sql.execution.SparkStrategy;
import org.apache.spark.sql.types.StructType;
import scala.runtime.AbstractFunction1;

/**
 * The session internals the connector reaches, on Spark 4.2: they belong to {@code
 * org.apache.spark.sql.classic.SparkSession}, the implementation behind the API's {@link
 * SparkSession}, as on the other Spark 4 lines. The line's own extensions plan {@code NEAREST BY}
 * joins against lance tables as lancelot's batch search (decision D65).
 */
public final class SparkLine {
  private SparkLine() {}

  /** The catalog registered as {@code name} in {@code spark}. */
  public static CatalogPlugin catalog(SparkSession spark, String name) {
    return classic(spark).sessionState().catalogManager().catalog(name);
  }

  /** The DataFrame of a logical plan. */
  public static Dataset<Row> ofRows(SparkSession spark, LogicalPlan plan) {
    return org.apache.spark.sql.classic.Dataset.ofRows(classic(spark), plan);
  }

  /** The session's experimental methods (extra planner strategies). */
  public static ExperimentalMethods experimental(SparkSession spark) {
    return classic(spark).experimental();
  }

  /** The session's physical planner. */
  public static SparkPlanner planner(SparkSession spark) {
    return classic(spark).sessionState().planner();
  }

  /** A DataFrame over rows already in Spark's internal format. */
  public static Dataset<Row> internalCreateDataFrame(
      SparkSession spark, RDD<InternalRow> rows, StructType schema) {
    return classic(spark).internalCreateDataFrame(rows, schema, false);
  }

  /**
   * What {@code LanceSparkExtensions} adds on this line only: the analyzer rule that turns a {@code
   * NEAREST BY} join against a lance table into lancelot's batch search, before Spark's optimizer
   * rewrites it into a cross join, and the strategy that plans it.
   */
  public static void injectLineExtensions(SparkSessionExtensions extensions) {
    extensions.injectPostHocResolutionRule(
        new AbstractFunction1<SparkSession, Rule<LogicalPlan>>() {
          @Override
          public Rule<LogicalPlan> apply(SparkSession session) {
            return new NearestByJoinRule();
          }
        });
    extensions.injectPlannerStrategy(
        new AbstractFunction1<SparkSession, SparkStrategy>() {
          @Override
          public SparkStrategy apply(SparkSession session) {
            return new NearestJoinExec.Strategy();
          }
        });
  }

  private static org.apache.spark.sql.classic.SparkSession classic(SparkSession spark) {
    return (org.apache.spark.sql.classic.SparkSession) spark;
  }
}
