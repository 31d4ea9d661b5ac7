package dev.lancelot.spark.shim;

import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.ExperimentalMethods;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.execution.SparkPlanner;
import org.apache.spark.sql.types.StructType;

/**
 * The session internals the connector reaches, on the Spark 4 lines: there they belong to {@code
 * org.apache.spark.sql.classic.SparkSession}, the implementation behind the API's {@link
 * SparkSession} (Spark 3.5 has one class for both).
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

  private static org.apache.spark.sql.classic.SparkSession classic(SparkSession spark) {
    return (org.apache.spark.sql.classic.SparkSession) spark;
  }
}
