package dev.lancelot.spark;

import org.apache.spark.sql.connector.metric.CustomSumMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * A metric of a lancelot scan or write, summed over its tasks. Spark instantiates each metric class
 * by name on the driver, so every metric is a small subclass with a no-argument constructor.
 */
public abstract class SumMetric extends CustomSumMetric {
  private final String name;
  private final String description;

  protected SumMetric(String name, String description) {
    this.name = name;
    this.description = description;
  }

  @Override
  public String name() {
    return name;
  }

  /** What the Spark UI shows. */
  @Override
  public String description() {
    return description;
  }

  /** One task's (or the driver's) value of the metric called {@code name}. */
  public static CustomTaskMetric value(String name, long value) {
    return new CustomTaskMetric() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public long value() {
        return value;
      }
    };
  }
}
