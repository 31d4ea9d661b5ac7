package dev.lancelot.examples;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentInfo;
import dev.lancelot.engine.VersionInfo;
import java.nio.file.Files;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.MetadataBuilder;

/**
 * The quickstart: writes a small Lance dataset with Spark (ids, a skewed tenant_id, 128-dim float
 * vectors), appends a second batch, reads it back with a filter, and prints rows, versions and
 * fragments. Usage: {@code Quickstart [dataset-path]} (a fresh temporary directory by default).
 */
public final class Quickstart {
  private Quickstart() {}

  public static void main(String[] args) throws Exception {
    String path = args.length > 0 ? args[0] : Files.createTempDirectory("lancelot-quickstart").resolve("items")
        .toString();
    SparkSession spark = SparkSession.builder().master("local[2]").appName("lancelot-quickstart")
        .config("spark.ui.enabled", "false").config("spark.driver.host", "127.0.0.1").getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    try {
      System.out.println("== Writing 10,000 rows to " + path);
      items(spark, 0, 10_000).write().format("lance").mode("overwrite").save(path);
      System.out.println("== Appending 2,000 rows");
      items(spark, 10_000, 2_000).write().format("lance").mode("append").save(path);

      System.out.println("== Rows of tenant 42 (filter pushed down to the engine)");
      org.apache.spark.sql.Dataset<Row> tenant42 = spark.read().format("lance").load(path)
          .filter("tenant_id = 42").select(col("id"), col("tenant_id"), expr("slice(vector, 1, 3)").as("vector[0:3]"));
      tenant42.show(5, false);
      System.out.println("tenant 42 has " + tenant42.count() + " rows; the dataset has "
          + spark.read().format("lance").load(path).count() + " rows");

      try (Dataset ds = Dataset.open(path)) {
        System.out.println("== Versions");
        for (VersionInfo v : ds.versions()) {
          System.out.printf("  version %d  %-9s  %6d rows  %d fragments  %s%n", v.version(), v.operation(), v.rows(),
              v.fragments(), v.timestamp());
        }
        System.out.println("== Fragments of version " + ds.version());
        for (FragmentInfo f : ds.fragments()) {
          System.out.printf("  fragment %d  %6d rows  %s%n", f.id(), f.rows(), f.dataFiles());
        }
      }
    } finally {
      spark.stop();
    }
  }

  /** ids [from, from + n), tenant_id skewed towards small ids, 128-dim vectors marked as Lance vectors. */
  static org.apache.spark.sql.Dataset<Row> items(SparkSession spark, long from, long n) {
    return spark.range(from, from + n, 1, 2).select(
        col("id"),
        expr("cast(pow(rand(42), 3) * 100 as int)").as("tenant_id"),
        expr("transform(sequence(1, 128), i -> cast(hash(id, i) / 2147483648.0 as float))")
            .as("vector", new MetadataBuilder().putLong("arrow.fixed-size-list.size", 128).build()));
  }

}
