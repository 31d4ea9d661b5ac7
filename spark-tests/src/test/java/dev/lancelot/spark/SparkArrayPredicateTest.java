package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.spark.read.ArrayPredicatePushDown;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.LongPredicate;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Spark's {@code array_contains} / {@code arrays_overlap}, which Spark pushes to no data source,
 * reach the lance scan through {@link ArrayPredicatePushDown} (decision D77): a label-list index
 * selects the rows read (the scan's description and its rows-scanned metric show it), the rows
 * equal Spark's own three-valued answer computed here from the data's formula, with NULL lists,
 * empty lists, NULL elements, rows deleted after the build and an unindexed appended fragment.
 */
class SparkArrayPredicateTest extends SharedSpark {
  static Path dir;

  /** 4,000 rows in four fragments, label lists on both list columns, a delete, an append. */
  @BeforeAll
  static void writeData() throws Exception {
    dir = Files.createTempDirectory("spark-array-predicates").resolve("t");
    rows(0, 4000).write().format("lance").option("max_rows_per_file", 1000).save(dir.toString());
    for (String column : List.of("tags", "nums")) {
      spark.sql(
          "CALL lance.system.create_scalar_index(table => '"
              + dir
              + "', column => '"
              + column
              + "', index_type => 'LABEL_LIST')");
    }
    spark.sql("DELETE FROM lance.`" + dir + "` WHERE id % 31 = 0");
    rows(4000, 1000).coalesce(1).write().format("lance").mode("append").save(dir.toString());
    table().createOrReplaceTempView("array_scan");
  }

  static Dataset<Row> rows(long first, long count) {
    return spark
        .range(first, first + count)
        .selectExpr(
            "id",
            "CASE WHEN id % 17 = 3 THEN NULL WHEN id % 19 = 4 THEN CAST(array() AS array<string>)"
                + " ELSE array(concat('t', id % 7), IF(id % 5 = 0, NULL, concat('u', id % 11)),"
                + " IF(id % 97 = 0, 'rare', concat('v', id % 3))) END AS tags",
            "IF(id % 23 = 1, NULL, array(CAST(id % 13 AS INT), CAST(id % 29 AS INT))) AS nums");
  }

  /** The tags of row {@code id} (null for a NULL list), as {@link #rows} writes them. */
  static List<String> tags(long id) {
    if (id % 17 == 3) {
      return null;
    } else if (id % 19 == 4) {
      return List.of();
    }
    return Arrays.asList(
        "t" + id % 7, id % 5 == 0 ? null : "u" + id % 11, id % 97 == 0 ? "rare" : "v" + id % 3);
  }

  static List<Integer> nums(long id) {
    return id % 23 == 1 ? null : List.of((int) (id % 13), (int) (id % 29));
  }

  /** Spark's {@code array_contains}: NULL for a NULL list, or no match and a NULL element. */
  static Boolean contains(List<?> list, Object value) {
    if (list == null) {
      return null;
    }
    if (list.stream().anyMatch(value::equals)) {
      return true;
    }
    return list.stream().anyMatch(java.util.Objects::isNull) ? null : false;
  }

  static boolean live(long id) {
    return id >= 4000 || id % 31 != 0;
  }

  static TreeSet<Long> expected(LongPredicate filter) {
    TreeSet<Long> out = new TreeSet<>();
    for (long id = 0; id < 5000; id++) {
      if (live(id) && filter.test(id)) {
        out.add(id);
      }
    }
    return out;
  }

  static Dataset<Row> table() {
    return spark.read().format("lance").load(dir.toString());
  }

  static TreeSet<Long> ids(Dataset<Row> df) {
    return SparkScalarIndexKindsTest.ids(df);
  }

  /** Rows of the indexed fragments the query keeps: what an exact index selection reads there. */
  static long indexedMatches(LongPredicate filter) {
    return expected(filter).stream().filter(id -> id < 4000).count();
  }

  @Test
  void arrayContainsFromTheDataFrameApiReadsOnlyTheIndexedRows() {
    Dataset<Row> df = table().filter(functions.array_contains(functions.col("tags"), "rare"));
    String description = SparkIndexedScanTest.description(df);
    assertThat(description)
        .contains("array_contains(tags, 'rare')", "index=[tags_idx] exact", "read in full=1");
    LongPredicate rare = id -> Boolean.TRUE.equals(contains(tags(id), "rare"));
    TreeSet<Long> got = ids(df);
    assertThat(got).isEqualTo(expected(rare)).isNotEmpty();
    Map<String, SQLMetric> m = SparkIndexedScanTest.metrics(df);
    // the index's rows of the four indexed fragments, and the appended fragment's 1,000
    assertThat(m.get("rowsScanned").value()).isEqualTo(indexedMatches(rare) + 1000);
    assertThat(m.get("indexLookups").value()).isEqualTo(1);

    spark.conf().set(ArrayPredicatePushDown.ENABLED_CONF, "false");
    try {
      Dataset<Row> plain = table().filter(functions.array_contains(functions.col("tags"), "rare"));
      assertThat(SparkIndexedScanTest.description(plain)).doesNotContain("array_contains");
      assertThat(ids(plain)).isEqualTo(got);
      // every physical row (deleted ones included) of the five fragments
      assertThat(SparkIndexedScanTest.metrics(plain).get("rowsScanned").value()).isEqualTo(5000);
    } finally {
      spark.conf().unset(ArrayPredicatePushDown.ENABLED_CONF);
    }
  }

  /**
   * Each query with the rows it keeps and the rows its index part selects: the scan reads those of
   * the indexed fragments, plus the unindexed appended fragment.
   */
  @Test
  void sqlArrayPredicatesGiveSparksRowsThroughTheIndex() {
    Map<String, LongPredicate[]> pushed = new LinkedHashMap<>();
    LongPredicate u3OrRare = id -> has(tags(id), "u3") || has(tags(id), "rare");
    pushed.put("arrays_overlap(tags, array('u3', 'rare'))", both(u3OrRare));
    pushed.put("arrays_overlap(array('rare', NULL), tags)", both(id -> has(tags(id), "rare")));
    pushed.put(
        "array_contains(tags, 't2') AND array_contains(tags, 'u4')",
        both(id -> has(tags(id), "t2") && has(tags(id), "u4")));
    pushed.put(
        "array_contains(tags, 'rare') OR array_contains(nums, 27)",
        both(id -> has(tags(id), "rare") || has(nums(id), 27)));
    LongPredicate sevenOrEight = id -> has(nums(id), 7) || has(nums(id), 8);
    pushed.put(
        "id >= 1000 AND arrays_overlap(nums, array(7, 8)) AND id % 2 = 0",
        new LongPredicate[] {
          id -> id >= 1000 && sevenOrEight.test(id) && id % 2 == 0, sevenOrEight
        });
    pushed.put("array_contains(tags, 'absent')", both(id -> false));
    for (Map.Entry<String, LongPredicate[]> q : pushed.entrySet()) {
      Dataset<Row> df = spark.sql("SELECT id FROM array_scan WHERE " + q.getKey());
      assertThat(SparkIndexedScanTest.description(df)).as(q.getKey()).contains("index=[");
      assertThat(ids(df)).as(q.getKey()).isEqualTo(expected(q.getValue()[0]));
      assertThat(SparkIndexedScanTest.metrics(df).get("rowsScanned").value())
          .as(q.getKey())
          .isEqualTo(indexedMatches(q.getValue()[1]) + 1000);
    }
    assertThat(
            SparkIndexedScanTest.description(
                spark.sql(
                    "SELECT id FROM array_scan WHERE arrays_overlap(tags, array('u3', 'rare'))")))
        .contains("array_has_any(tags, ['u3', 'rare'])", "index=[tags_idx] exact");
  }

  @Test
  void explainShowsThePushedFilter() {
    String plan =
        spark
            .sql("EXPLAIN SELECT id FROM array_scan WHERE array_contains(tags, 'rare')")
            .first()
            .getString(0);
    assertThat(plan).contains("filter=array_contains(tags, 'rare')", "index=[tags_idx] exact");
  }

  /**
   * Dates and binaries are pushed with Spark's answer; float elements are not (Spark calls {@code
   * -0.0} equal to {@code 0.0}), nor timestamps, and Spark still finds them.
   */
  @Test
  void otherElementTypes() throws Exception {
    Path types = Files.createTempDirectory("spark-array-types").resolve("t");
    spark
        .range(0, 300)
        .selectExpr(
            "id",
            "array(date_add(DATE'2024-01-01', CAST(id % 10 AS INT)), NULL) AS days",
            "array(timestamp_micros(1700000000000000 + (id % 7) * 1000001)) AS times",
            "array(CAST(concat('b', id % 5) AS BINARY)) AS bins",
            "array(CAST(id % 3 AS DOUBLE) + 1.0, IF(id % 4 = 0, -0.0, 5.0)) AS dbls")
        .write()
        .format("lance")
        .option("max_rows_per_file", 100)
        .save(types.toString());
    Map<String, Boolean> cases = new LinkedHashMap<>();
    cases.put("array_contains(days, DATE'2024-01-04')", true);
    cases.put("array_contains(times, timestamp_micros(1700000003000003))", false);
    cases.put("arrays_overlap(bins, array(CAST('b2' AS BINARY), CAST('b4' AS BINARY)))", true);
    cases.put("array_contains(dbls, 0.0)", false);
    for (Map.Entry<String, Boolean> c : cases.entrySet()) {
      Dataset<Row> df = spark.read().format("lance").load(types.toString()).filter(c.getKey());
      String description = SparkIndexedScanTest.description(df);
      if (c.getValue()) {
        assertThat(description).as(c.getKey()).contains("filter=array_");
      } else {
        assertThat(description).as(c.getKey()).doesNotContain("array_");
      }
      TreeSet<Long> got = ids(df);
      spark.conf().set(ArrayPredicatePushDown.ENABLED_CONF, "false");
      try {
        assertThat(got)
            .as(c.getKey())
            .isEqualTo(ids(spark.read().format("lance").load(types.toString()).filter(c.getKey())))
            .isNotEmpty()
            .hasSizeLessThan(300);
      } finally {
        spark.conf().unset(ArrayPredicatePushDown.ENABLED_CONF);
      }
    }
  }

  private static LongPredicate[] both(LongPredicate p) {
    return new LongPredicate[] {p, p};
  }

  /**
   * Negations, NULL tests of the three-valued result and ORs with other conditions are left to
   * Spark: every row is read, and the rows are Spark's (a list with a NULL element and no match is
   * neither in {@code array_contains} nor in its negation).
   */
  @Test
  void whatTheIndexCannotAnswerIsLeftToSpark() {
    Map<String, LongPredicate> left = new LinkedHashMap<>();
    left.put(
        "NOT array_contains(tags, 'u3')", id -> Boolean.FALSE.equals(contains(tags(id), "u3")));
    left.put("array_contains(tags, 'u3') IS NULL", id -> contains(tags(id), "u3") == null);
    left.put("array_contains(tags, 'rare') OR id = 5", id -> has(tags(id), "rare") || id == 5);
    left.put("size(tags) = 0", id -> tags(id) != null && tags(id).isEmpty());
    for (Map.Entry<String, LongPredicate> q : left.entrySet()) {
      Dataset<Row> df = spark.sql("SELECT id FROM array_scan WHERE " + q.getKey());
      assertThat(SparkIndexedScanTest.description(df))
          .as(q.getKey())
          .doesNotContain("array_")
          .doesNotContain("index=[");
      assertThat(ids(df)).as(q.getKey()).isEqualTo(expected(q.getValue())).isNotEmpty();
    }
  }

  @Test
  void theIndexedAnswerEqualsAnUnindexedRead() {
    List<Column> filters = new ArrayList<>();
    filters.add(functions.array_contains(functions.col("tags"), "t4"));
    filters.add(functions.arrays_overlap(functions.col("nums"), functions.array(functions.lit(3))));
    filters.add(
        functions
            .array_contains(functions.col("tags"), "v1")
            .and(functions.array_contains(functions.col("nums"), 0)));
    for (Column filter : filters) {
      Dataset<Row> df = table().filter(filter);
      assertThat(SparkIndexedScanTest.description(df)).as(filter.toString()).contains("index=[");
      TreeSet<Long> indexed = ids(df);
      spark.conf().set("spark.lancelot.scan.useScalarIndex", "false");
      try {
        assertThat(indexed).as(filter.toString()).isEqualTo(ids(table().filter(filter)));
      } finally {
        spark.conf().unset("spark.lancelot.scan.useScalarIndex");
      }
      assertThat(indexed).as(filter.toString()).isNotEmpty();
    }
  }

  private static boolean has(List<?> list, Object value) {
    return Boolean.TRUE.equals(contains(list, value));
  }
}
