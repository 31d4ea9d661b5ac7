package dev.lancelot.spark.shim;

import org.apache.spark.sql.SparkSessionExtensions;

/**
 * What {@code LanceSparkExtensions} adds on Spark 3.5 only (decision D50): nothing since the parser
 * extension, which on this line also reads {@code CALL} (D76), is injected on every line ({@link
 * LanceParser}, this line's own).
 */
public final class LineExtensions {
  private LineExtensions() {}

  /** Injects the line's own extensions. */
  public static void inject(SparkSessionExtensions extensions) {
    // nothing line-specific
  }
}
