package dev.lancelot.spark.shim;

import org.apache.spark.sql.SparkSessionExtensions;

/**
 * What {@code LanceSparkExtensions} adds on one Spark line only (decision D50): nothing on Spark
 * 3.5, 4.0 and 4.1 (the parser extension, which differs by line, is injected on every line, D76);
 * the 4.2 line's version adds the planning of {@code NEAREST BY} joins (D65); each line replaces
 * this class alone.
 */
public final class LineExtensions {
  private LineExtensions() {}

  /** Injects the line's own extensions. */
  public static void inject(SparkSessionExtensions extensions) {
    // nothing line-specific
  }
}
