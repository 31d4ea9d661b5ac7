package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Statistics;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2ScanRelation;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Statistics, LIMIT and COUNT(*) pushed into lance scans, on a dataset of 6 fragments, 4 versions
 * and deletion files ({@link SparkScanPushdownTest#writeDataset}): what the planner sees, what the
 * scan reads, and that the answers equal those of a scan that reads every row.
 */
class SparkPushedOperatorsTest extends SharedSpark {
  static Path dir;

  /** Live ids of the latest version (4): ids 60..599 that are not multiples of 7. */
  static Set<Long> liveIds = new HashSet<>();

  @BeforeAll
  static void writeData() throws Exception {
    dir = Files.createTempDirectory("spark-pushed-ops").resolve("t");
    SparkScanPushdownTest.writeDataset(dir);
    for (long id = 60; id < 600; id++) {
      if (id % 7 != 0) {
        liveIds.add(id);
      }
    }
  }

  static Dataset<Row> table() {
    return spark.read().format("lance").load(dir.toString());
  }

  static Dataset<Row> version(long v) {
    return spark.read().format("lance").option("version", v).load(dir.toString());
  }

  static Statistics scanStatistics(Dataset<Row> df) {
    LogicalPlan plan = df.queryExecution().optimizedPlan();
    return plan.find(p -> p instanceof DataSourceV2ScanRelation).get().stats();
  }

  static long dataFileBytes() throws Exception {
    try (Stream<Path> files = Files.list(dir.resolve("data"))) {
      return files.mapToLong(p -> p.toFile().length()).sum();
    }
  }

  @Test
  void statisticsAreTheManifestsRowsAndFileBytes() throws Exception {
    Statistics all = scanStatistics(table());
    assertThat(all.rowCount().get().longValue()).isEqualTo(liveIds.size());
    assertThat(all.sizeInBytes().longValue()).isEqualTo(dataFileBytes());
    assertThat(scanStatistics(version(1)).rowCount().get().longValue()).isEqualTo(500);
    assertThat(scanStatistics(version(3)).rowCount().get().longValue()).isEqualTo(600 - 86);
    // one column: every data file holds all columns, so the bytes stay those of the whole files
    assertThat(scanStatistics(table().select("id")).sizeInBytes().longValue())
        .isEqualTo(dataFileBytes());
    // no data column read: still every data file's bytes (an upper bound), never 0
    assertThat(scanStatistics(table().select("_rowaddr")).sizeInBytes().longValue())
        .isEqualTo(dataFileBytes());
    // a pushed filter makes the row count unknown; the bytes remain an upper bound
    Statistics filtered = scanStatistics(table().filter("i > 0"));
    assertThat(filtered.rowCount().isEmpty()).isTrue();
    assertThat(filtered.sizeInBytes().longValue()).isEqualTo(dataFileBytes());
    assertThat(scanStatistics(table().limit(7)).rowCount().get().longValue()).isEqualTo(7);
  }

  /**
   * The table is far below the broadcast threshold by its statistics; without them Spark assumes it
   * huge.
   */
  @Test
  void theSmallLanceSideOfAJoinIsBroadcast() throws Exception {
    Dataset<Row> join = spark.range(0, 50_000_000L).join(table(), "id");
    assertThat(join.queryExecution().sparkPlan().toString())
        .contains("BroadcastHashJoin")
        .contains("BuildRight");
    String threshold = spark.conf().get("spark.sql.autoBroadcastJoinThreshold");
    spark.conf().set("spark.sql.autoBroadcastJoinThreshold", Long.toString(dataFileBytes() - 1));
    try {
      Dataset<Row> again = spark.range(0, 50_000_000L).join(table(), "id");
      assertThat(again.queryExecution().sparkPlan().toString()).doesNotContain("BroadcastHashJoin");
    } finally {
      spark.conf().set("spark.sql.autoBroadcastJoinThreshold", threshold);
    }
  }

  @Test
  void limitReadsOnlyTheFragmentsItNeeds() {
    Dataset<Row> five = table().limit(5);
    assertThat(scanDescription(five)).contains("limit=5");
    assertThat(inputPartitions(five)).isEqualTo(1);
    List<Row> rows = five.collectAsList();
    assertThat(rows).hasSize(5).allMatch(r -> liveIds.contains(r.getLong(0)));
    assertThat(rowsRead(five)).isEqualTo(5);

    // fragment 0 keeps 34 of its 100 rows, fragment 1 86: 150 rows need the first three fragments
    Dataset<Row> many = table().limit(150);
    assertThat(inputPartitions(many)).isEqualTo(3);
    assertThat(ids(many)).hasSize(150).doesNotHaveDuplicates().allMatch(liveIds::contains);

    assertThat(table().limit(0).collectAsList()).isEmpty();
    assertThat(ids(table().limit(10_000))).hasSize(liveIds.size());
    assertThat(inputPartitions(table())).isEqualTo(6);
  }

  @Test
  void limitWithAFilterStopsEachPartitionEarly() {
    Dataset<Row> df = table().filter("i > 0").limit(3);
    assertThat(scanDescription(df)).contains("filter=").contains("limit=3");
    assertThat(inputPartitions(df)).isEqualTo(6);
    List<Row> rows = df.collectAsList();
    assertThat(rows).hasSize(3).allMatch(r -> r.getInt(1) > 0 && liveIds.contains(r.getLong(0)));
    assertThat(rowsRead(df)).isBetween(3L, 6 * 3L);

    // a condition Spark evaluates after the scan keeps the limit out of the scan
    Dataset<Row> sparkFiltered = table().filter("upper(s) = 'USER-75'").limit(1);
    assertThat(scanDescription(sparkFiltered)).doesNotContain("limit=");
    assertThat(ids(sparkFiltered)).containsExactly(75L);
  }

  @Test
  void countStarIsAnsweredFromTheManifestInEveryVersion() {
    long[] expected = {500, 600, 600 - 86, liveIds.size()};
    for (int v = 1; v <= 4; v++) {
      Dataset<Row> count = version(v).selectExpr("count(*)");
      assertThat(scanDescription(count)).as("version %d", v).contains("aggregate=COUNT(*)");
      assertThat(count.first().getLong(0)).as("version %d", v).isEqualTo(expected[v - 1]);
      // a scan that reads the rows agrees
      assertThat(version(v).select("id").collectAsList()).hasSize((int) expected[v - 1]);
      assertThat(version(v).count()).isEqualTo(expected[v - 1]);
    }
  }

  @Test
  void countsThatNeedTheDataAreLeftToSpark() {
    table().createOrReplaceTempView("ops");
    spark
        .createDataFrame(table().collectAsList(), table().schema())
        .createOrReplaceTempView("ops_reference");
    for (String q :
        List.of(
            "SELECT count(*) FROM %s WHERE i > 0",
            "SELECT count(*), count(i) FROM %s",
            "SELECT b, count(*) FROM %s GROUP BY b ORDER BY b",
            "SELECT count(*) FROM %s WHERE upper(s) = 'USER-75'")) {
      Dataset<Row> pushed = spark.sql(String.format(q, "ops"));
      assertThat(scanDescription(pushed)).as(q).doesNotContain("aggregate=");
      assertThat(pushed.collectAsList())
          .as(q)
          .isEqualTo(spark.sql(String.format(q, "ops_reference")).collectAsList());
    }
  }

  static String scanDescription(Dataset<Row> df) {
    SparkPlan plan = df.queryExecution().sparkPlan();
    return ((BatchScanExec) plan.find(p -> p instanceof BatchScanExec).get()).scan().description();
  }

  static int inputPartitions(Dataset<Row> df) {
    SparkPlan plan = df.queryExecution().sparkPlan();
    return ((BatchScanExec) plan.find(p -> p instanceof BatchScanExec).get())
        .scan()
        .toBatch()
        .planInputPartitions()
        .length;
  }

  /** The scan's rowsRead metric after running {@code df}. */
  static long rowsRead(Dataset<Row> df) {
    SparkPlan plan = df.queryExecution().executedPlan();
    if (plan instanceof AdaptiveSparkPlanExec adaptive) {
      plan = adaptive.executedPlan();
    }
    BatchScanExec scan = (BatchScanExec) plan.find(p -> p instanceof BatchScanExec).get();
    return scan.metrics().apply("rowsRead").value();
  }

  static List<Long> ids(Dataset<Row> df) {
    List<Long> out = new ArrayList<>();
    for (Row r : df.select("id").collectAsList()) {
      out.add(r.getLong(0));
    }
    return out;
  }
}
