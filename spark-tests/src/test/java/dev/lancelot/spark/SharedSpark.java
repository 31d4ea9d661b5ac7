package dev.lancelot.spark;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** One local[2] Spark session (and Arrow allocator for the oracle) per test class. */
public abstract class SharedSpark {
  protected static SparkSession spark;
  protected static BufferAllocator allocator;

  @BeforeAll
  static void startSpark() {
    spark = SparkSession.builder()
        .master("local[2]")
        .appName("lancelot-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.extensions", LanceSparkExtensions.class.getName())
        .getOrCreate();
    allocator = new RootAllocator();
  }

  @AfterAll
  static void stopSpark() {
    allocator.close();
    spark.stop();
    spark = null;
  }
}
