package dev.lancelot.spark;

import dev.lancelot.spark.read.BlobFunction;
import dev.lancelot.spark.search.FullTextSearchFunction;
import dev.lancelot.spark.search.LanceSparkVectorSearchFunction;
import dev.lancelot.spark.search.NearestOrderRule;
import dev.lancelot.spark.search.SearchHint;
import dev.lancelot.spark.search.VectorSearchFunction;
import dev.lancelot.spark.search.VectorSearchStrategy;
import dev.lancelot.spark.shim.LanceParser;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.ExpressionInfo;
import org.apache.spark.sql.catalyst.parser.ParserInterface;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.SparkStrategy;
import scala.Function1;
import scala.Tuple3;
import scala.runtime.AbstractFunction1;
import scala.runtime.AbstractFunction2;
import scala.runtime.BoxedUnit;

/**
 * Spark session extension of lancelot: registers the SQL table-valued function {@code
 * lance_vector_search} (SPEC S3), its lance-spark-named twin {@code VECTOR_SEARCH}, {@code
 * lance_fts_search} (full-text search, D71), {@code lance_blob} (one row's blob, {@link
 * BlobFunction}), the planner strategy that runs vector searches with the merge on the driver
 * ({@code VectorSearchStrategy}), and the optimizer rule that answers {@code ORDER BY <distance>
 * LIMIT k} over a lance table with that search ({@link NearestOrderRule}, D65) with its per-query
 * {@code LANCE_SEARCH} hint ({@link SearchHint}, D73). Enable with {@code
 * spark.sql.extensions=dev.lancelot.spark.LanceSparkExtensions}. Index builds (SPEC S7) are stored
 * procedures of {@link LanceCatalog} ({@code CALL lance.system.create_index(...)}), not functions:
 * a table function runs while its query is analysed. Its parser ({@code LanceParser}, D76) reads
 * lance-spark's statements ({@code ALTER TABLE t CREATE INDEX ...}, {@code OPTIMIZE t}, ...) as
 * calls of those procedures, and on Spark 3.5, which has no stored procedures, {@code CALL} too.
 */
public final class LanceSparkExtensions
    extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {
  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    injectTableFunction(
        extensions,
        VectorSearchFunction.class,
        VectorSearchFunction.NAME,
        VectorSearchFunction.USAGE,
        new VectorSearchFunction());
    injectTableFunction(
        extensions,
        LanceSparkVectorSearchFunction.class,
        LanceSparkVectorSearchFunction.NAME,
        LanceSparkVectorSearchFunction.USAGE,
        new LanceSparkVectorSearchFunction());
    injectTableFunction(
        extensions,
        FullTextSearchFunction.class,
        FullTextSearchFunction.NAME,
        FullTextSearchFunction.USAGE,
        new FullTextSearchFunction());
    injectTableFunction(
        extensions, BlobFunction.class, BlobFunction.NAME, BlobFunction.USAGE, new BlobFunction());
    extensions.injectPlannerStrategy(
        new AbstractFunction1<SparkSession, SparkStrategy>() {
          @Override
          public SparkStrategy apply(SparkSession session) {
            return new VectorSearchStrategy();
          }
        });
    extensions.injectResolutionRule(
        new AbstractFunction1<SparkSession, Rule<LogicalPlan>>() {
          @Override
          public Rule<LogicalPlan> apply(SparkSession session) {
            return new SearchHint();
          }
        });
    extensions.injectPreCBORule(
        new AbstractFunction1<SparkSession, Rule<LogicalPlan>>() {
          @Override
          public Rule<LogicalPlan> apply(SparkSession session) {
            return new NearestOrderRule();
          }
        });
    extensions.injectParser(
        new AbstractFunction2<SparkSession, ParserInterface, ParserInterface>() {
          @Override
          public ParserInterface apply(SparkSession session, ParserInterface delegate) {
            return new LanceParser(session, delegate);
          }
        });
    dev.lancelot.spark.read.ArrayPredicatePushDown.inject(extensions);
    dev.lancelot.spark.shim.LineExtensions.inject(extensions);
    return BoxedUnit.UNIT;
  }

  /**
   * Registers a table function. Spark's builder type takes Scala's {@code Seq}, which is {@code
   * scala.collection.immutable.Seq} on Scala 2.13 and {@code scala.collection.Seq} on 2.12; the
   * builders take {@code scala.collection.Seq}, a supertype of both, so they accept what either
   * passes (a function is contravariant in its argument), but Java cannot name the description's
   * type once for both: it is passed raw.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static void injectTableFunction(
      SparkSessionExtensions extensions,
      Class<?> implementation,
      String name,
      String usage,
      Function1<scala.collection.Seq<Expression>, LogicalPlan> builder) {
    ExpressionInfo info =
        new ExpressionInfo(
            implementation.getName(), null, name, usage, "", "", "", "table_funcs", "", "", "");
    extensions.injectTableFunction(
        (Tuple3) new Tuple3<>(FunctionIdentifier.apply(name), info, builder));
  }
}
