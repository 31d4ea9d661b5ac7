package dev.lancelot.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.table.DatasetPaths;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.spark.index.LanceIndexBuilder;
import dev.lancelot.spark.search.LanceVectorSearch;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.MetadataBuilder;

/**
 * Every entry point of the connector, given one location as a user typed it (relative, or without a
 * scheme): writes in two save modes, reads with a filter, index builds from Java and SQL ({@code
 * CALL lance.system.create_index}, the session's catalog {@code lance}), an optimize, searches from
 * Java and SQL. Used by the tests of how locations are resolved.
 */
final class PathFlows {
  static final int DIM = 8;

  private PathFlows() {}

  /** ids [from, from + n), tenant_id = id % 10, vector[i] = sin(id * i). */
  static org.apache.spark.sql.Dataset<Row> frame(
      SparkSession spark, long from, long n, int partitions) {
    return spark
        .range(from, from + n, 1, partitions)
        .select(
            col("id"),
            expr("cast(id % 10 as int)").as("tenant_id"),
            expr("transform(sequence(1, " + DIM + "), i -> cast(sin(id * i) as float))")
                .as(
                    "vector",
                    new MetadataBuilder().putLong(SparkTypes.FIXED_SIZE_LIST_SIZE, DIM).build()));
  }

  static float[] vectorOf(long id) {
    float[] v = new float[DIM];
    for (int i = 0; i < DIM; i++) {
      v[i] = (float) Math.sin((double) id * (i + 1));
    }
    return v;
  }

  /** Runs every flow on {@code path}; returns the location the connector resolved it to. */
  static String writeReadIndexSearch(SparkSession spark, String path) {
    frame(spark, 0, 1200, 2).write().format("lance").save(path); // errorifexists: creates
    frame(spark, 1200, 300, 1).write().format("lance").mode("append").save(path);
    assertThat(spark.read().format("lance").load(path).count()).isEqualTo(1500);
    assertThat(spark.read().format("lance").load(path).filter("tenant_id = 3 AND id < 600").count())
        .isEqualTo(60);

    LanceIndexBuilder.createIndex(
        spark,
        path,
        "vector",
        VectorIndexSpec.of(IndexType.IVF_PQ, DistanceMetric.L2)
            .withNumPartitions(2)
            .withNumSubVectors(2)
            .withSeed(1));
    Row hnsw =
        spark
            .sql(
                "CALL lance.system.create_index(table => '"
                    + path
                    + "', column => 'vector', "
                    + "index_type => 'IVF_HNSW_SQ', num_partitions => 2, seed => 1, name => 'hnsw_idx')")
            .first();
    assertThat(hnsw.getLong(hnsw.fieldIndex("indexed_rows"))).isEqualTo(1500);
    frame(spark, 1500, 100, 1).write().format("lance").mode("append").save(path);
    assertThat(LanceIndexBuilder.optimize(spark, path, "vector_idx", false)).isEqualTo(6);

    float[] q = vectorOf(42);
    List<Row> exact =
        LanceVectorSearch.search(
                spark,
                path,
                VectorQuery.builder("vector").vector(q).k(5).useIndex(false).columns("id").build())
            .collectAsList();
    assertThat(exact).hasSize(5);
    assertThat(exact.get(0).getLong(0)).isEqualTo(42L);
    List<Row> indexed =
        LanceVectorSearch.search(
                spark,
                path,
                VectorQuery.builder("vector")
                    .vector(q)
                    .k(5)
                    .nprobes(2)
                    .refineFactor(10)
                    .filter("tenant_id = 2")
                    .prefilter(true)
                    .columns("id")
                    .build())
            .collectAsList();
    assertThat(indexed).isNotEmpty().allMatch(r -> r.getLong(0) % 10 == 2);
    assertThat(indexed.get(0).getLong(0)).isEqualTo(42L);
    List<Row> sql =
        spark
            .sql(
                "SELECT id FROM lance_vector_search('"
                    + path
                    + "', column => 'vector', q => array("
                    + SparkVectorSearchTest.toSql(q)
                    + "), k => 3, use_index => false)")
            .collectAsList();
    assertThat(sql).hasSize(3);
    assertThat(sql.get(0).getLong(0)).isEqualTo(42L);

    String location =
        LanceVectorSearch.explain(
            spark, path, VectorQuery.builder("vector").vector(q).k(1).build());
    return location.substring("LanceVectorSearch[".length(), location.indexOf(", version="));
  }

  /** Data and index files the latest manifest of {@code location} names, as full URIs. */
  static Set<String> manifestFiles(String location, Configuration conf) {
    Set<String> out = new TreeSet<>();
    try (Dataset ds = Dataset.open(location, OpenOptions.defaults().withHadoopConf(conf))) {
      DatasetPaths paths = DatasetPaths.of(ds.location());
      DatasetInternals.snapshot(ds)
          .fragments()
          .forEach(f -> f.getFilesList().forEach(file -> out.add(paths.dataFile(file.getPath()))));
      VectorIndexes.describe(ds, "vector_idx")
          .segments()
          .forEach(s -> out.add(paths.indexDir(s.uuid().toString()) + "/index.idx"));
      VectorIndexes.describe(ds, "hnsw_idx")
          .segments()
          .forEach(s -> out.add(paths.indexDir(s.uuid().toString()) + "/index.idx"));
    }
    return out;
  }
}
