package dev.lancelot.examples;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentInfo;
import dev.lancelot.engine.VersionInfo;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.scalar.BTreeBuildParams;
import dev.lancelot.engine.index.scalar.BTreeIndexBuilder;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.spark.index.LanceIndexBuilder;
import dev.lancelot.spark.search.LanceVectorSearch;
import java.nio.file.Files;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.MetadataBuilder;

/**
 * The quickstart, ending in the reference query of the behaviour contract. It writes a Lance
 * dataset with Spark (ids, a skewed tenant_id, 128-dim float vectors around 64 cluster centres) as
 * two fragments, builds an IVF_HNSW_SQ index (cosine, from Spark) and a BTree on tenant_id, appends
 * a third fragment that no index covers, reads back with a filter, prints versions and fragments,
 * and then runs the reference vector search — k=3, cosine, minimum_nprobes 2, maximum_nprobes 8,
 * refine_factor 4, ef 64, prefilter {@code tenant_id = 42} — distributed by Spark: its explain
 * tree, its three rows with distances, and its recall against exact search.
 *
 * <p>Usage: {@code Quickstart [dataset-path]} (a fresh temporary directory by default).
 */
public final class Quickstart {
  private Quickstart() {}

  public static void main(String[] args) throws Exception {
    String path =
        args.length > 0
            ? args[0]
            : Files.createTempDirectory("lancelot-quickstart").resolve("items").toString();
    SparkSession spark =
        SparkSession.builder()
            .master("local[2]")
            .appName("lancelot-quickstart")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    try {
      System.out.println("== Writing 10,000 rows to " + path + " (two fragments)");
      items(spark, 0, 10_000, 2).write().format("lance").mode("overwrite").save(path);
      System.out.println(
          "== Building an IVF_HNSW_SQ index (cosine) on vector from Spark (one encoding task per"
              + " fragment) and a BTree on tenant_id");
      LanceIndexBuilder.createIndex(
          spark,
          path,
          "vector",
          VectorIndexSpec.of(IndexType.IVF_HNSW_SQ, DistanceMetric.COSINE)
              .withNumPartitions(8)
              .withHnsw(20, 150, 7));
      try (Dataset ds = Dataset.open(path)) {
        BTreeIndexBuilder.build(ds, BTreeBuildParams.of("tenant_id")).close();
      }
      System.out.println("== Appending 2,000 rows (a fragment the indexes do not cover yet)");
      items(spark, 10_000, 2_000, 1).write().format("lance").mode("append").save(path);

      System.out.println("== Rows of tenant 42 (filter pushed down to the engine)");
      org.apache.spark.sql.Dataset<Row> tenant42 =
          spark
              .read()
              .format("lance")
              .load(path)
              .filter("tenant_id = 42")
              .select(col("id"), col("tenant_id"), expr("slice(vector, 1, 3)").as("vector[0:3]"));
      tenant42.show(5, false);
      System.out.println(
          "tenant 42 has "
              + tenant42.count()
              + " rows; the dataset has "
              + spark.read().format("lance").load(path).count()
              + " rows");

      try (Dataset ds = Dataset.open(path)) {
        System.out.println("== Versions");
        for (VersionInfo v : ds.versions()) {
          System.out.printf(
              "  version %d  %-11s  %6d rows  %d fragments  %s%n",
              v.version(), v.operation(), v.rows(), v.fragments(), v.timestamp());
        }
        System.out.println("== Fragments of version " + ds.version());
        for (FragmentInfo f : ds.fragments()) {
          System.out.printf("  fragment %d  %6d rows  %s%n", f.id(), f.rows(), f.dataFiles());
        }
      }

      float[] q = queryVector(spark, path);
      VectorQuery reference =
          VectorQuery.builder("vector")
              .vector(q)
              .k(3)
              .metric(DistanceMetric.COSINE)
              .minimumNprobes(2)
              .maximumNprobes(8)
              .refineFactor(4)
              .ef(64)
              .filter("tenant_id = 42")
              .prefilter(true)
              .columns("id", "tenant_id")
              .build();
      System.out.println(
          "== The reference query: k=3, cosine, nprobes 2..8, refine_factor 4, ef 64, "
              + "prefilter tenant_id = 42 (query vector: row 7's vector, slightly moved)");
      System.out.println(LanceVectorSearch.explain(spark, path, reference));
      List<Row> rows = LanceVectorSearch.search(spark, path, reference).collectAsList();
      System.out.println("== Results");
      for (Row r : rows) {
        System.out.printf(
            "  id=%-6d tenant_id=%-3d _distance=%.6f%n",
            r.getLong(r.fieldIndex("id")),
            r.getInt(r.fieldIndex("tenant_id")),
            r.getFloat(r.fieldIndex("_distance")));
      }
      // The exact counterpart (use_index=false, same filter, in the metric the search used) on the
      // same version.
      System.out.println("== " + LanceVectorSearch.recall(spark, path, reference));
    } finally {
      spark.stop();
    }
  }

  /**
   * ids [from, from + n) in {@code fragments} Spark partitions (one fragment each), tenant_id
   * skewed towards small ids, and 128-dim vectors marked as Lance vectors: centre {@code id % 64}
   * (coordinates in [-1, 1)) plus noise of ±0.25 per coordinate, all derived from hashes so that
   * runs repeat.
   */
  static org.apache.spark.sql.Dataset<Row> items(
      SparkSession spark, long from, long n, int fragments) {
    return spark
        .range(from, from + n, 1, fragments)
        .select(
            col("id"),
            expr("cast(pow(rand(42), 3) * 100 as int)").as("tenant_id"),
            expr("transform(sequence(1, 128), i -> cast(hash(id % 64, i) / 2147483648.0 "
                    + "+ hash(id, i, 7) / 8589934592.0 as float))")
                .as(
                    "vector",
                    new MetadataBuilder().putLong("arrow.fixed-size-list.size", 128).build()));
  }

  /**
   * Row 7's vector with every coordinate moved by +0.01: near, but not equal to, a stored vector.
   */
  static float[] queryVector(SparkSession spark, String path) {
    List<Float> v =
        spark
            .read()
            .format("lance")
            .load(path)
            .filter("id = 7")
            .select("vector")
            .first()
            .getList(0);
    float[] q = new float[v.size()];
    for (int i = 0; i < q.length; i++) {
      q[i] = v.get(i) + 0.01f;
    }
    return q;
  }
}
