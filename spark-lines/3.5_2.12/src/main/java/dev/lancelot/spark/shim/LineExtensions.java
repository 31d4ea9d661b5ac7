package dev.lancelot.spark.shim;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.parser.ParserInterface;
import scala.runtime.AbstractFunction2;

/**
 * What {@code LanceSparkExtensions} adds on Spark 3.5 only (decision D53): a parser that refuses
 * {@code CALL} with an error naming the line ({@link CallRefusingParser}), where Spark's own parser
 * would report a syntax error.
 */
public final class LineExtensions {
  private LineExtensions() {}

  /** Injects the line's own extensions. */
  public static void inject(SparkSessionExtensions extensions) {
    extensions.injectParser(
        new AbstractFunction2<SparkSession, ParserInterface, ParserInterface>() {
          @Override
          public ParserInterface apply(SparkSession session, ParserInterface delegate) {
            return new CallRefusingParser(delegate);
          }
        });
  }
}
