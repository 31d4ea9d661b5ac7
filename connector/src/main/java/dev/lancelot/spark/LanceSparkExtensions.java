package dev.lancelot.spark;

import dev.lancelot.spark.search.VectorSearchFunction;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.expressions.ExpressionInfo;
import scala.Tuple3;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

/**
 * Spark session extension of lancelot: registers the SQL table-valued function
 * {@code lance_vector_search} (SPEC S3). Enable with
 * {@code spark.sql.extensions=dev.lancelot.spark.LanceSparkExtensions}.
 */
public final class LanceSparkExtensions extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {
  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    FunctionIdentifier name = FunctionIdentifier.apply(VectorSearchFunction.NAME);
    ExpressionInfo info = new ExpressionInfo(VectorSearchFunction.class.getName(), null, VectorSearchFunction.NAME,
        VectorSearchFunction.USAGE, "", "", "", "table_funcs", "", "", "");
    extensions.injectTableFunction(new Tuple3<>(name, info, new VectorSearchFunction()));
    return BoxedUnit.UNIT;
  }
}
