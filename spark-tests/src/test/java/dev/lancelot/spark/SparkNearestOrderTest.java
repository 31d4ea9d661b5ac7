package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.ClusteredData;
import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.spark.search.NearestOrderRule;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * SPEC S8 (decision D65): {@code ORDER BY <distance>(vector, <constant>) LIMIT k} over a lance
 * table is answered by the vector search — IVF_FLAT (l2) index on two fragments plus an unindexed
 * appended fragment — and returns exactly the plain plan's rows and distances where the search is
 * exact (every partition probed, or flat for a metric without an index); forms it does not answer
 * are left to Spark.
 */
class SparkNearestOrderTest extends SharedSpark {
  static final int DIM = 16;
  static Path dir;
  static float[][] queries;

  @BeforeAll
  static void build() throws Exception {
    dir = Files.createTempDirectory("spark-nearest-order");
    append(0, 3000, WriteMode.CREATE);
    try (Dataset ds = Dataset.open(dir.toString())) {
      VectorIndexes.create(
              ds,
              "vector",
              VectorIndexSpec.of(IndexType.IVF_FLAT, DistanceMetric.L2).withNumPartitions(6))
          .close();
    }
    append(3000, 500, WriteMode.APPEND);
    queries = ClusteredData.queries(3, DIM, 30, 3, 11);
    spark.read().format("lance").load(dir.toString()).createOrReplaceTempView("nearest_items");
  }

  static void append(long first, int rows, WriteMode mode) throws Exception {
    try (VectorSchemaRoot b = ClusteredData.generate(allocator, first, rows, DIM, 30, 3);
        ArrowReader r = ArrowStreams.readerOf(allocator, List.of(b))) {
      Dataset.write(dir.toString(), r, WriteOptions.of(mode).withMaxRowsPerFile(1500)).close();
    }
  }

  @AfterEach
  void sessionDefaults() {
    spark.conf().unset(NearestOrderRule.ENABLED_CONF);
    spark.conf().unset(NearestOrderRule.NPROBES_CONF);
    spark.conf().unset(NearestOrderRule.MAX_K_CONF);
  }

  @Test
  void orderByL2DistanceLimitIsTheIndexedSearchAndEqualsSparksSort() {
    spark.conf().set(NearestOrderRule.NPROBES_CONF, "6");
    for (float[] q : queries) {
      String sql =
          "SELECT id, name, lance.system.l2_distance(vector, "
              + array(q)
              + ") AS d FROM nearest_items ORDER BY d ASC NULLS LAST LIMIT 10";
      String plan = explain(sql);
      assertThat(plan)
          .contains("LanceVectorSearch[")
          .contains("answers=ORDER BY lance.system.l2_distance(vector, <query>) ASC LIMIT 10")
          .contains("ANNSubIndex")
          .contains("type=IVF_FLAT")
          .doesNotContain("BatchScan");
      assertThat(rows(sql)).hasSize(10).isEqualTo(plain(sql));
    }
  }

  @Test
  void whereIsThePrefilterAndTheDistanceNeedNotBeProjected() {
    spark.conf().set(NearestOrderRule.NPROBES_CONF, "6");
    String sql =
        "SELECT id, tenant_id FROM nearest_items WHERE tenant_id = 3 AND id >= 200 ORDER BY "
            + "lance.system.l2_distance("
            + array(queries[1])
            + ", vector) NULLS LAST LIMIT 7";
    assertThat(explain(sql)).contains("LanceVectorSearch[").contains("prefilter");
    List<String> got = rows(sql);
    assertThat(got).hasSize(7).allSatisfy(r -> assertThat(r).contains(",3"));
    assertThat(got).isEqualTo(plain(sql));
  }

  @Test
  void cosineAndDotWithoutAnIndexOfTheirMetricSearchFlat() {
    for (String function : List.of("cosine_distance", "dot_distance")) {
      String sql =
          "SELECT id, lance.system."
              + function
              + "(vector, "
              + array(queries[2])
              + ") AS d FROM nearest_items WHERE tenant_id < 5 ORDER BY d NULLS LAST LIMIT 5";
      assertThat(explain(sql)).contains("LanceVectorSearch[").contains("FlatKnn");
      assertThat(rows(sql)).as(function).hasSize(5).isEqualTo(plain(sql));
    }
  }

  @Test
  void theSessionsNprobesReachesTheSearch() {
    String sql =
        "SELECT id FROM nearest_items ORDER BY lance.system.l2_distance(vector, "
            + array(queries[0])
            + ") NULLS LAST LIMIT 3";
    spark.conf().set(NearestOrderRule.NPROBES_CONF, "1");
    assertThat(explain(sql)).contains("nprobes=1..1");
    spark.conf().set(NearestOrderRule.NPROBES_CONF, "6");
    assertThat(explain(sql)).contains("nprobes=6..6");
  }

  @Test
  void aLanceSearchHintSetsThisQuerysSettingsOverTheSessions() {
    spark.conf().set(NearestOrderRule.NPROBES_CONF, "6");
    String query =
        " id FROM nearest_items ORDER BY lance.system.l2_distance(vector, "
            + array(queries[0])
            + ") NULLS LAST LIMIT 3";
    assertThat(explain("SELECT /*+ LANCE_SEARCH('nprobes=2', 'refine_factor=3') */" + query))
        .contains("nprobes=2..2")
        .contains("refine_factor=3");
    assertThat(explain("SELECT /*+ lance_search('nprobes = 1') */" + query))
        .contains("nprobes=1..1");
    // the view's relation is not changed by a hinted query: the next one has the session's setting
    assertThat(explain("SELECT" + query)).contains("nprobes=6..6");
    // the DataFrame form
    String plan =
        spark
            .table("nearest_items")
            .hint("lance_search", "nprobes=3")
            .orderBy(
                org.apache
                    .spark
                    .sql
                    .functions
                    .expr("lance.system.l2_distance(vector, " + array(queries[0]) + ")")
                    .asc_nulls_last())
            .limit(3)
            .queryExecution()
            .explainString(org.apache.spark.sql.execution.ExtendedMode$.MODULE$);
    assertThat(plan).contains("LanceVectorSearch[").contains("nprobes=3..3");
  }

  @Test
  void aMalformedLanceSearchHintFailsTheQueryNamingTheProblem() {
    String query =
        " id FROM nearest_items ORDER BY lance.system.l2_distance(vector, "
            + array(queries[0])
            + ") NULLS LAST LIMIT 3";
    assertThatThrownBy(() -> spark.sql("SELECT /*+ LANCE_SEARCH('nprobes=0') */" + query))
        .hasMessageContaining("nprobes must be a positive integer; got '0'");
    assertThatThrownBy(() -> spark.sql("SELECT /*+ LANCE_SEARCH('probes=4') */" + query))
        .hasMessageContaining("keys nprobes, refine_factor, ef; got 'probes=4'");
    assertThatThrownBy(() -> spark.sql("SELECT /*+ LANCE_SEARCH */" + query))
        .hasMessageContaining("needs settings");
    assertThatThrownBy(() -> spark.sql("SELECT /*+ LANCE_SEARCH('ef=8') */ * FROM range(3)"))
        .hasMessageContaining("no lance table under it");
  }

  @Test
  void formsTheSearchDoesNotAnswerAreSparksOwn() {
    String q = array(queries[0]);
    List<String> sparks =
        List.of(
            // NULLs first: Spark returns the rows without a vector first; the search never does
            "SELECT id FROM nearest_items ORDER BY lance.system.l2_distance(vector, "
                + q
                + ") LIMIT 3",
            // a distance ranked the wrong way round
            "SELECT id FROM nearest_items ORDER BY lance.system.l2_distance(vector, "
                + q
                + ") DESC LIMIT 3",
            // a second sort key
            "SELECT id FROM nearest_items ORDER BY lance.system.l2_distance(vector, "
                + q
                + ") NULLS LAST, id LIMIT 3",
            // a WHERE the engine has no exact form of
            "SELECT id FROM nearest_items WHERE upper(name) LIKE 'USER-1%' ORDER BY "
                + "lance.system.l2_distance(vector, "
                + q
                + ") NULLS LAST LIMIT 3",
            // no LIMIT
            "SELECT id FROM nearest_items WHERE id < 20 ORDER BY lance.system.l2_distance(vector, "
                + q
                + ") NULLS LAST");
    for (String sql : sparks) {
      assertThat(explain(sql)).as(sql).doesNotContain("LanceVectorSearch");
      assertThat(rows(sql)).as(sql).isEqualTo(plain(sql));
    }
    spark.conf().set(NearestOrderRule.MAX_K_CONF, "2");
    assertThat(
            explain(
                "SELECT id FROM nearest_items ORDER BY lance.system.l2_distance(vector, "
                    + q
                    + ") NULLS LAST LIMIT 3"))
        .doesNotContain("LanceVectorSearch");
  }

  /** The query's rows, each as its values joined by commas, in order. */
  private static List<String> rows(String sql) {
    List<String> out = new ArrayList<>();
    for (Row r : spark.sql(sql).collectAsList()) {
      out.add(r.mkString(","));
    }
    return out;
  }

  /** The same query's rows as Spark answers it without the rule (a scan and a sort). */
  private static List<String> plain(String sql) {
    spark.conf().set(NearestOrderRule.ENABLED_CONF, "false");
    try {
      assertThat(explain(sql)).doesNotContain("LanceVectorSearch");
      return rows(sql);
    } finally {
      spark.conf().unset(NearestOrderRule.ENABLED_CONF);
    }
  }

  private static String explain(String sql) {
    return spark.sql("EXPLAIN EXTENDED " + sql).first().getString(0);
  }

  static String array(float[] q) {
    StringBuilder sb = new StringBuilder("array(");
    for (int i = 0; i < q.length; i++) {
      sb.append(i == 0 ? "" : ", ").append("CAST(").append(q[i]).append(" AS FLOAT)");
    }
    return sb.append(')').toString();
  }
}
