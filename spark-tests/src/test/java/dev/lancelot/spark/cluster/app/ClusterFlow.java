package dev.lancelot.spark.cluster.app;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;

import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.spark.search.LanceVectorSearch;
import dev.lancelot.spark.search.SparkRecall;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.MetadataBuilder;

/**
 * The end-to-end flow run on the standalone cluster and, for reference, in a local[2] session:
 * write, filtered read, SQL index build ({@code CALL lance.system.create_index}), append,
 * table-function search with a prefilter, DataFrame search, recall, optimize, fast_search. Each
 * step yields one answer; answers hold no paths, so the two runs can be compared line by line.
 */
public final class ClusterFlow {
  static final int DIM = 16;

  private ClusterFlow() {}

  /** Runs every step on a fresh dataset at {@code path} and returns the answers, in order. */
  public static List<Map<String, Object>> run(SparkSession spark, String path) {
    List<Map<String, Object>> answers = new ArrayList<>();
    // index builds are procedures of lancelot's catalog; the flow names it itself, so the cluster
    // lane's submit settings need not
    if (!spark.conf().contains("spark.sql.catalog.lance")) {
      spark.conf().set("spark.sql.catalog.lance", dev.lancelot.spark.LanceCatalog.class.getName());
    }

    items(spark, 0, 3000, 4).write().format("lance").mode("overwrite").save(path);
    answers.add(
        answer(
            "write",
            "rows",
            spark.read().format("lance").load(path).count(),
            "versions",
            Datasets.versions(path)));

    List<Row> tenant3 =
        spark
            .read()
            .format("lance")
            .load(path)
            .filter("tenant_id = 3 AND id < 400")
            .select(col("id"), col("tenant_id"), expr("vector[0]").as("v0"))
            .orderBy("id")
            .collectAsList();
    answers.add(answer("filtered read", "rows", rows(tenant3)));

    Row created =
        spark
            .sql(
                "CALL lance.system.create_index(table => '"
                    + path
                    + "', column => 'vector', "
                    + "index_type => 'IVF_HNSW_SQ', metric => 'l2', num_partitions => 4, m => 8, ef_construction => 40, "
                    + "seed => 7)")
            .collectAsList()
            .get(0);
    answers.add(answer("create index", "row", row(created)));

    items(spark, 3000, 600, 2).write().format("lance").mode("append").save(path);
    answers.add(
        answer(
            "append",
            "rows",
            spark.read().format("lance").load(path).count(),
            "versions",
            Datasets.versions(path)));

    Map<Long, float[]> q = queryVectors(spark, path, 7, 3100, 11, 1234, 3333);
    List<Row> tvf =
        spark
            .sql(
                "SELECT id, tenant_id, _distance FROM lance_vector_search('"
                    + path
                    + "', column => "
                    + "'vector', q => array("
                    + sql(q.get(7L))
                    + "), k => 5, nprobes => 2, refine_factor => 2, filter => 'tenant_id = 3', "
                    + "prefilter => true)")
            .collectAsList();
    answers.add(answer("tvf search prefilter", "rows", rows(tvf)));

    VectorQuery search =
        VectorQuery.builder("vector")
            .vector(q.get(3100L))
            .k(8)
            .nprobes(2)
            .columns("id", "tenant_id")
            .withRowId(true)
            .build();
    answers.add(
        answer(
            "dataframe search",
            "rows",
            rows(LanceVectorSearch.search(spark, path, search).collectAsList())));

    VectorQuery batch =
        VectorQuery.builder("vector")
            .vectors(q.get(11L), q.get(1234L), q.get(3333L))
            .k(10)
            .nprobes(1)
            .build();
    SparkRecall recall = LanceVectorSearch.recall(spark, path, batch);
    answers.add(
        answer(
            "recall",
            "version",
            recall.version(),
            "queries",
            recall.queries(),
            "meanRows",
            recall.meanRows(),
            "recall",
            recall.recall()));

    Row optimized =
        spark
            .sql("CALL lance.system.optimize_index(table => '" + path + "', name => 'vector_idx')")
            .collectAsList()
            .get(0);
    answers.add(answer("optimize index", "row", row(optimized)));

    VectorQuery fast = search.toBuilder().fastSearch(true).build();
    answers.add(
        answer(
            "fast search",
            "rows",
            rows(LanceVectorSearch.search(spark, path, fast).collectAsList()),
            "versions",
            Datasets.versions(path)));

    // The same index-only search again: each segment runs where it ran last (preferred locations),
    // whose cache holds it, so no executor reads an index byte again.
    org.apache.spark.sql.Dataset<Row> again = LanceVectorSearch.search(spark, path, fast);
    List<Row> againRows = again.collectAsList();
    java.util.Map<String, org.apache.spark.sql.execution.metric.SQLMetric> metrics =
        scala.jdk.javaapi.CollectionConverters.asJava(
            again.queryExecution().executedPlan().metrics());
    answers.add(
        answer(
            "fast search repeated",
            "rows",
            rows(againRows),
            "index cache misses",
            metrics.get("indexCacheMisses").value(),
            "bytes read",
            metrics.get("bytesRead").value(),
            "files opened",
            metrics.get("filesOpened").value()));

    // Latency of warm single searches, for the log only (it differs between local and a cluster).
    long[] nanos = new long[21];
    for (int i = 0; i < nanos.length; i++) {
      long t0 = System.nanoTime();
      LanceVectorSearch.search(spark, path, search).collectAsList();
      nanos[i] = System.nanoTime() - t0;
    }
    java.util.Arrays.sort(nanos);
    System.out.printf(
        "lancelot search latency on %s: p50 %.1f ms, max %.1f ms over %d warm searches%n",
        spark.sparkContext().master(),
        nanos[nanos.length / 2] / 1e6,
        nanos[nanos.length - 1] / 1e6,
        nanos.length);
    return answers;
  }

  /**
   * Rows {@code [from, from + n)} in {@code partitions} Spark partitions: tenant_id in 0..9 and
   * {@value #DIM}-dim vectors around 16 centres, all derived from hashes so that every run writes
   * the same data.
   */
  static Dataset<Row> items(SparkSession spark, long from, long n, int partitions) {
    return withColumns(spark.range(from, from + n, 1, partitions).toDF());
  }

  /** The item columns computed from an {@code id} column. */
  static Dataset<Row> withColumns(Dataset<Row> ids) {
    return ids.select(
        col("id"),
        expr("cast(pmod(hash(id, 3), 10) as int)").as("tenant_id"),
        expr("transform(sequence(1, "
                + DIM
                + "), i -> cast(hash(id % 16, i) / 2147483648.0 "
                + "+ hash(id, i, 7) / 8589934592.0 as float))")
            .as(
                "vector",
                new MetadataBuilder().putLong("arrow.fixed-size-list.size", DIM).build()));
  }

  /**
   * The vectors of rows {@code ids}, moved by +0.01 per coordinate: near, but not equal to, stored
   * vectors.
   */
  static Map<Long, float[]> queryVectors(SparkSession spark, String path, long... ids) {
    StringBuilder in = new StringBuilder();
    for (long id : ids) {
      in.append(in.length() == 0 ? "" : ", ").append(id);
    }
    Map<Long, float[]> out = new java.util.HashMap<>();
    for (Row r :
        spark
            .read()
            .format("lance")
            .load(path)
            .filter("id IN (" + in + ")")
            .select("id", "vector")
            .collectAsList()) {
      List<Float> v = r.getList(1);
      float[] q = new float[v.size()];
      for (int i = 0; i < q.length; i++) {
        q[i] = v.get(i) + 0.01f;
      }
      out.put(r.getLong(0), q);
    }
    return out;
  }

  static Map<String, Object> answer(String step, Object... keysAndValues) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("step", step);
    for (int i = 0; i < keysAndValues.length; i += 2) {
      out.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return out;
  }

  static List<Map<String, Object>> rows(List<Row> rows) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Row r : rows) {
      out.add(row(r));
    }
    return out;
  }

  static Map<String, Object> row(Row r) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (String f : r.schema().fieldNames()) {
      Object v = r.get(r.fieldIndex(f));
      out.put(
          f,
          v instanceof scala.collection.Seq<?> s
              ? scala.jdk.javaapi.CollectionConverters.asJava(s)
              : v);
    }
    return out;
  }

  private static String sql(float[] q) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < q.length; i++) {
      sb.append(i == 0 ? "" : ", ").append("cast(").append(q[i]).append(" as float)");
    }
    return sb.toString();
  }
}
