package dev.lancelot.spark.shim;

import dev.lancelot.spark.search.NearestByJoinRule;
import dev.lancelot.spark.search.NearestJoinExec;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.SparkStrategy;
import scala.runtime.AbstractFunction1;

/**
 * What {@code LanceSparkExtensions} adds on Spark 4.2 only (decision D65): the analyzer rule that
 * turns a {@code NEAREST BY} join against a lance table into lancelot's batch search, before
 * Spark's optimizer rewrites it into a cross join, and the strategy that plans it.
 */
public final class LineExtensions {
  private LineExtensions() {}

  /** Injects the line's own extensions. */
  public static void inject(SparkSessionExtensions extensions) {
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
}
