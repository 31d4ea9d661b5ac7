package dev.lancelot.spark;

import dev.lancelot.spark.search.LanceSparkVectorSearchFunction;
import dev.lancelot.spark.search.VectorSearchFunction;
import dev.lancelot.spark.search.VectorSearchStrategy;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.expressions.ExpressionInfo;
import org.apache.spark.sql.execution.SparkStrategy;
import scala.Tuple3;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

/**
 * Spark session extension of lancelot: registers the SQL table-valued function {@code
 * lance_vector_search} (SPEC S3), its lance-spark-named twin {@code VECTOR_SEARCH}, and the planner
 * strategy that runs vector searches with the merge on the driver ({@code VectorSearchStrategy}).
 * Enable with {@code spark.sql.extensions=dev.lancelot.spark.LanceSparkExtensions}. Index builds
 * (SPEC S7) are stored procedures of {@link LanceCatalog} ({@code CALL
 * lance.system.create_index(...)}), not functions: a table function runs while its query is
 * analysed.
 */
public final class LanceSparkExtensions
    extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {
  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    FunctionIdentifier name = FunctionIdentifier.apply(VectorSearchFunction.NAME);
    ExpressionInfo info =
        new ExpressionInfo(
            VectorSearchFunction.class.getName(),
            null,
            VectorSearchFunction.NAME,
            VectorSearchFunction.USAGE,
            "",
            "",
            "",
            "table_funcs",
            "",
            "",
            "");
    extensions.injectTableFunction(new Tuple3<>(name, info, new VectorSearchFunction()));
    FunctionIdentifier alias = FunctionIdentifier.apply(LanceSparkVectorSearchFunction.NAME);
    ExpressionInfo aliasInfo =
        new ExpressionInfo(
            LanceSparkVectorSearchFunction.class.getName(),
            null,
            LanceSparkVectorSearchFunction.NAME,
            LanceSparkVectorSearchFunction.USAGE,
            "",
            "",
            "",
            "table_funcs",
            "",
            "",
            "");
    extensions.injectTableFunction(
        new Tuple3<>(alias, aliasInfo, new LanceSparkVectorSearchFunction()));
    extensions.injectPlannerStrategy(
        new AbstractFunction1<SparkSession, SparkStrategy>() {
          @Override
          public SparkStrategy apply(SparkSession session) {
            return new VectorSearchStrategy();
          }
        });
    return BoxedUnit.UNIT;
  }
}
