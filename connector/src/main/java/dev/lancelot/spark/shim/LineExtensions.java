package dev.lancelot.spark.shim;

import org.apache.spark.sql.SparkSessionExtensions;

/**
 * What {@code LanceSparkExtensions} adds on one Spark line only (decision D50): nothing on Spark
 * 4.0 and 4.1. The 3.5 line's version adds a parser that names the line when {@code CALL} fails,
 * the 4.2 line's the planning of {@code NEAREST BY} joins (D65); each line replaces this class
 * alone.
 */
public final class LineExtensions {
  private LineExtensions() {}

  /** Injects the line's own extensions. */
  public static void inject(SparkSessionExtensions extensions) {
    // nothing line-specific
  }
}
