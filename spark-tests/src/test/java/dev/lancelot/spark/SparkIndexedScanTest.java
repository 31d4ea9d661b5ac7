package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.LongPredicate;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A WHERE on a column with a BTree index reads only the rows the index selects (plus the rows of a
 * fragment appended after the build) and returns what a scan of every row returns; EXPLAIN and the
 * scan's metrics show it (decision D52).
 */
class SparkIndexedScanTest extends SharedSpark {
  static Path dir;
  static long indexedVersion;
  static long unindexedVersion;

  /** 8,000 rows in four fragments, tenant = id % 100; then an index, a delete and an append. */
  @BeforeAll
  static void writeData() throws Exception {
    dir = Files.createTempDirectory("spark-indexed-scan").resolve("t");
    rows(0, 8000).write().format("lance").option("max_rows_per_file", 2000).save(dir.toString());
    unindexedVersion = dev.lancelot.engine.Dataset.open(dir.toString()).version();
    spark.sql("CALL lance.system.create_scalar_index(table => '" + dir + "', column => 'tenant')");
    spark.sql("DELETE FROM lance.`" + dir + "` WHERE tenant = 41 AND id % 3 = 0");
    rows(8000, 1000).coalesce(1).write().format("lance").mode("append").save(dir.toString());
    indexedVersion = dev.lancelot.engine.Dataset.open(dir.toString()).version();
  }

  static Dataset<Row> rows(long first, long count) {
    return spark
        .range(first, first + count)
        .selectExpr("id", "cast(id % 100 as int) AS tenant", "concat('user-', id) AS name");
  }

  static boolean live(long id) {
    return !(id % 100 == 41 && id < 8000 && id % 3 == 0);
  }

  static TreeSet<Long> expected(LongPredicate filter) {
    TreeSet<Long> out = new TreeSet<>();
    for (long id = 0; id < 9000; id++) {
      if (live(id) && filter.test(id)) {
        out.add(id);
      }
    }
    return out;
  }

  static TreeSet<Long> ids(Dataset<Row> df) {
    TreeSet<Long> out = new TreeSet<>();
    for (Row r : df.collectAsList()) {
      out.add(r.getLong(r.fieldIndex("id")));
    }
    return out;
  }

  static Dataset<Row> table() {
    return spark.read().format("lance").load(dir.toString());
  }

  static String description(Dataset<Row> df) {
    SparkPlan plan = df.queryExecution().sparkPlan();
    return ((BatchScanExec) plan.find(p -> p instanceof BatchScanExec).get()).scan().description();
  }

  static Map<String, SQLMetric> metrics(Dataset<Row> df) {
    SparkPlan plan = df.queryExecution().executedPlan();
    if (plan instanceof AdaptiveSparkPlanExec adaptive) {
      plan = adaptive.executedPlan();
    }
    BatchScanExec scan = (BatchScanExec) plan.find(p -> p instanceof BatchScanExec).get();
    return CollectionConverters.asJava(scan.metrics());
  }

  @Test
  void aWhereOnAnIndexedColumnReadsOnlyTheSelectedRows() {
    Dataset<Row> df = table().filter("tenant = 42").select("id", "name");
    assertThat(description(df)).contains("index=[tenant_idx] exact", "read in full=1");
    TreeSet<Long> got = ids(df);
    assertThat(got).isEqualTo(expected(id -> id % 100 == 42)).hasSize(90);
    Map<String, SQLMetric> m = metrics(df);
    assertThat(m.get("rowsRead").value()).isEqualTo(90);
    // 80 selected rows of the indexed fragments, and the appended fragment's 1,000
    assertThat(m.get("rowsScanned").value()).isEqualTo(80 + 1000);
    assertThat(m.get("indexLookups").value()).isEqualTo(1);
    assertThat(m.get("indexRowsSelected").value()).isEqualTo(80);
    assertThat(m.get("rowsScanned").name().get()).isEqualTo("rows scanned");

    // with the session's index use turned off, every row is read for the same answer
    spark.conf().set(dev.lancelot.spark.read.LanceScan.USE_SCALAR_INDEX_CONF, "false");
    try {
      Dataset<Row> unindexed = table().filter("tenant = 42").select("id", "name");
      assertThat(description(unindexed)).contains("index=none");
      assertThat(ids(unindexed)).isEqualTo(got);
      assertThat(metrics(unindexed).get("rowsScanned").value()).isEqualTo(9000);
      assertThat(metrics(unindexed).get("indexLookups").value()).isZero();
      spark.conf().set(dev.lancelot.spark.read.LanceScan.USE_SCALAR_INDEX_CONF, "maybe");
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> ids(table().filter("tenant = 42")))
          .hasStackTraceContaining(
              "Cannot use spark.lancelot.scan.useScalarIndex=\"maybe\": give true or false.");
    } finally {
      spark.conf().unset(dev.lancelot.spark.read.LanceScan.USE_SCALAR_INDEX_CONF);
    }

    // the version before the index reads every row for the same answer
    Dataset<Row> before =
        spark
            .read()
            .format("lance")
            .option("version", unindexedVersion)
            .load(dir.toString())
            .filter("tenant = 42");
    assertThat(description(before)).contains("index=none");
    assertThat(ids(before)).isEqualTo(expected(id -> id % 100 == 42 && id < 8000));
    assertThat(metrics(before).get("rowsScanned").value()).isEqualTo(8000);
  }

  @Test
  void sqlWhereClausesReturnWhatAFullScanReturns() {
    table().createOrReplaceTempView("indexed_scan");
    Map<String, LongPredicate> queries =
        Map.of(
            "tenant IN (3, 41, 77)",
            id -> id % 100 == 3 || id % 100 == 41 || id % 100 == 77,
            "tenant BETWEEN 10 AND 12 AND id > 5000",
            id -> id % 100 >= 10 && id % 100 <= 12 && id > 5000,
            "NOT (tenant >= 2) AND name LIKE 'user-1%'",
            id -> id % 100 < 2 && Long.toString(id).startsWith("1"),
            "tenant = 41 OR id = 5",
            id -> id % 100 == 41 || id == 5,
            "tenant IS NULL",
            id -> false);
    for (var q : queries.entrySet()) {
      Dataset<Row> df = spark.sql("SELECT id FROM indexed_scan WHERE " + q.getKey());
      assertThat(ids(df)).as(q.getKey()).isEqualTo(expected(q.getValue()));
    }
    assertThat(description(spark.sql("SELECT id FROM indexed_scan WHERE tenant = 41 OR id = 5")))
        .contains("index=none");
    assertThat(
            description(spark.sql("SELECT id FROM indexed_scan WHERE tenant = 3 AND id % 2 = 0")))
        .contains("superset");
  }

  @Test
  void updateAndDeleteOnAnIndexedColumnChangeTheRowsAFullScanFinds() throws Exception {
    Path other = Files.createTempDirectory("spark-indexed-dml").resolve("t");
    rows(0, 4000).write().format("lance").option("max_rows_per_file", 1000).save(other.toString());
    spark.sql(
        "CALL lance.system.create_scalar_index(table => '" + other + "', column => 'tenant')");
    String t = "lance.`" + other + "`";
    spark.sql("UPDATE " + t + " SET name = 'updated' WHERE tenant = 17 AND id > 1000");
    spark.sql("DELETE FROM " + t + " WHERE tenant IN (3, 4) OR (tenant = 17 AND id < 500)");
    TreeSet<Long> updated = new TreeSet<>();
    TreeSet<Long> all = new TreeSet<>();
    for (Row r : spark.sql("SELECT id, name FROM " + t).collectAsList()) {
      all.add(r.getLong(0));
      if (r.getString(1).equals("updated")) {
        updated.add(r.getLong(0));
      }
    }
    TreeSet<Long> expectedAll = new TreeSet<>();
    TreeSet<Long> expectedUpdated = new TreeSet<>();
    for (long id = 0; id < 4000; id++) {
      long tenant = id % 100;
      if (tenant == 3 || tenant == 4 || (tenant == 17 && id < 500)) {
        continue;
      }
      expectedAll.add(id);
      if (tenant == 17 && id > 1000) {
        expectedUpdated.add(id);
      }
    }
    assertThat(all).isEqualTo(expectedAll);
    assertThat(updated).isEqualTo(expectedUpdated).hasSize(30);
    assertThat(ids(spark.sql("SELECT id FROM " + t + " WHERE tenant = 17")))
        .isEqualTo(
            expectedAll.stream()
                .filter(id -> id % 100 == 17)
                .collect(java.util.stream.Collectors.toCollection(TreeSet::new)));
  }

  @Test
  void aLanceBuiltBitmapIndexAnswersTheWhereToo() throws Exception {
    Path other = Files.createTempDirectory("spark-bitmap-scan").resolve("t");
    rows(0, 4000).write().format("lance").option("max_rows_per_file", 1000).save(other.toString());
    try (org.lance.Dataset lance =
        org.lance.Dataset.open(
            allocator, other.toString(), new org.lance.ReadOptions.Builder().build())) {
      lance.createIndex(
          List.of("tenant"),
          org.lance.index.IndexType.BITMAP,
          java.util.Optional.of("tenant_bitmap"),
          org.lance.index.IndexParams.builder()
              .setScalarIndexParams(org.lance.index.scalar.ScalarIndexParams.create("bitmap"))
              .build(),
          true);
    }
    Dataset<Row> df =
        spark.read().format("lance").load(other.toString()).filter("tenant IN (5, 6)");
    assertThat(description(df)).contains("index=[tenant_bitmap] exact");
    TreeSet<Long> expected = new TreeSet<>();
    for (long id = 0; id < 4000; id++) {
      if (id % 100 == 5 || id % 100 == 6) {
        expected.add(id);
      }
    }
    assertThat(ids(df)).isEqualTo(expected);
    assertThat(metrics(df).get("rowsScanned").value()).isEqualTo(80);
  }

  @Test
  void explainShowsTheIndex() {
    List<String> lines = new ArrayList<>();
    for (Row r :
        spark.sql("EXPLAIN SELECT id FROM lance.`" + dir + "` WHERE tenant = 7").collectAsList()) {
      lines.add(r.getString(0));
    }
    assertThat(String.join("\n", lines)).contains("index=[tenant_idx] exact");
  }
}
