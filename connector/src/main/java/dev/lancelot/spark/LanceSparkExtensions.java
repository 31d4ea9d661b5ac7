package dev.lancelot.spark;

import dev.lancelot.spark.index.IndexFunctions;
import dev.lancelot.spark.search.VectorSearchFunction;
import dev.lancelot.spark.search.VectorSearchStrategy;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkStrategy;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.expressions.ExpressionInfo;
import scala.Tuple3;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

/**
 * Spark session extension of lancelot: registers the SQL table-valued functions
 * {@code lance_vector_search} (SPEC S3), {@code lance_create_index} and
 * {@code lance_optimize_index} (SPEC S7), and the planner strategy that runs vector searches with
 * the merge on the driver ({@code VectorSearchStrategy}). Enable with
 * {@code spark.sql.extensions=dev.lancelot.spark.LanceSparkExtensions}.
 */
public final class LanceSparkExtensions extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {
  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    FunctionIdentifier name = FunctionIdentifier.apply(VectorSearchFunction.NAME);
    ExpressionInfo info = new ExpressionInfo(VectorSearchFunction.class.getName(), null, VectorSearchFunction.NAME,
        VectorSearchFunction.USAGE, "", "", "", "table_funcs", "", "", "");
    extensions.injectTableFunction(new Tuple3<>(name, info, new VectorSearchFunction()));
    extensions.injectPlannerStrategy(new AbstractFunction1<SparkSession, SparkStrategy>() {
      @Override
      public SparkStrategy apply(SparkSession session) {
        return new VectorSearchStrategy();
      }
    });
    inject(extensions, IndexFunctions.CREATE, IndexFunctions.Create.class, IndexFunctions.CREATE_USAGE,
        new IndexFunctions.Create());
    inject(extensions, IndexFunctions.OPTIMIZE, IndexFunctions.Optimize.class, IndexFunctions.OPTIMIZE_USAGE,
        new IndexFunctions.Optimize());
    return BoxedUnit.UNIT;
  }

  private static void inject(SparkSessionExtensions extensions, String function, Class<?> impl, String usage,
      scala.Function1<scala.collection.immutable.Seq<org.apache.spark.sql.catalyst.expressions.Expression>,
          org.apache.spark.sql.catalyst.plans.logical.LogicalPlan> builder) {
    ExpressionInfo info = new ExpressionInfo(impl.getName(), null, function, usage, "", "", "", "table_funcs", "", "",
        "");
    extensions.injectTableFunction(new Tuple3<>(FunctionIdentifier.apply(function), info, builder));
  }
}
