package dev.lancelot.spark.lines;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.ClusteredData;
import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.spark.SharedSpark;
import dev.lancelot.spark.search.NearestByJoinRule;
import dev.lancelot.spark.search.NearestOrderRule;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * SPEC S9 (decision D65), Spark 4.2: {@code JOIN … APPROX|EXACT NEAREST k BY DISTANCE|SIMILARITY}
 * against a lance table (IVF_FLAT l2 index on two fragments, an unindexed appended fragment) is
 * lancelot's batch search, and gives the same rows as Spark's own rewrite where the search is exact
 * (EXACT, or APPROX probing every partition): each left row its own top k, the right side's WHERE
 * as prefilter, LEFT OUTER keeping left rows without a match.
 */
class NearestByJoinTest extends SharedSpark {
  static final int DIM = 16;
  static Path dir;

  @BeforeAll
  static void build() throws Exception {
    dir = Files.createTempDirectory("nearest-join");
    append(0, 2000, WriteMode.CREATE);
    try (Dataset ds = Dataset.open(dir.toString())) {
      VectorIndexes.create(
              ds,
              "vector",
              VectorIndexSpec.of(IndexType.IVF_FLAT, DistanceMetric.L2).withNumPartitions(4))
          .close();
    }
    append(2000, 300, WriteMode.APPEND);
    spark.read().format("lance").load(dir.toString()).createOrReplaceTempView("nj_items");
    float[][] q = ClusteredData.queries(12, DIM, 30, 3, 5);
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < q.length; i++) {
      List<Float> v = new ArrayList<>();
      for (float f : q[i]) {
        v.add(f);
      }
      rows.add(RowFactory.create(i, v));
    }
    rows.add(RowFactory.create(99, null)); // a query without a vector matches nothing
    StructType schema =
        new StructType()
            .add("qid", DataTypes.IntegerType)
            .add("q", DataTypes.createArrayType(DataTypes.FloatType));
    spark.createDataFrame(rows, schema).createOrReplaceTempView("nj_queries");
  }

  static void append(long first, int rows, WriteMode mode) throws Exception {
    try (VectorSchemaRoot b = ClusteredData.generate(allocator, first, rows, DIM, 30, 3);
        ArrowReader r = ArrowStreams.readerOf(allocator, List.of(b))) {
      Dataset.write(dir.toString(), r, WriteOptions.of(mode).withMaxRowsPerFile(1000)).close();
    }
  }

  @AfterEach
  void sessionDefaults() {
    spark.conf().unset(NearestOrderRule.NPROBES_CONF);
  }

  @Test
  void approxWithEveryPartitionProbedEqualsSparksRewrite() {
    spark.conf().set(NearestOrderRule.NPROBES_CONF, "4");
    String sql =
        "SELECT l.qid, r.id, r.tenant_id FROM nj_queries l JOIN nj_items r "
            + "APPROX NEAREST 5 BY DISTANCE vector_l2_distance(l.q, r.vector)";
    assertThat(explain(sql))
        .contains("LanceNearestJoin[")
        .contains("APPROX NEAREST 5 BY DISTANCE vector_l2_distance")
        .contains("ANNSubIndex")
        .contains("FlatKnn");
    List<String> got = rows(sql);
    assertThat(got).hasSize(12 * 5).noneMatch(r -> r.startsWith("99,"));
    assertThat(got).isEqualTo(sparks(sql));
  }

  @Test
  void aLanceSearchHintSetsTheJoinsNprobesOverTheSessions() {
    spark.conf().set(NearestOrderRule.NPROBES_CONF, "4");
    String join =
        " l.qid, r.id FROM nj_queries l JOIN nj_items r "
            + "APPROX NEAREST 3 BY DISTANCE vector_l2_distance(l.q, r.vector)";
    assertThat(explain("SELECT /*+ LANCE_SEARCH('nprobes=1') */" + join))
        .contains("LanceNearestJoin[")
        .contains("nprobes=1..1");
    assertThat(explain("SELECT" + join)).contains("nprobes=4..4");
  }

  @Test
  void exactWithARightSideWhereIsAFlatPrefilteredSearch() {
    String sql =
        "SELECT l.qid, r.id FROM nj_queries l JOIN (SELECT * FROM nj_items WHERE tenant_id = 3) r "
            + "EXACT NEAREST 4 BY DISTANCE lance.system.l2_distance(r.vector, l.q)";
    assertThat(explain(sql))
        .contains("LanceNearestJoin[")
        .contains("EXACT NEAREST 4")
        .contains("prefilter")
        .doesNotContain("ANNSubIndex");
    List<String> got = rows(sql);
    assertThat(got).hasSize(12 * 4).isEqualTo(sparks(sql));
  }

  @Test
  void similarityAndLeftOuterKeepQueriesWithoutAMatch() {
    String sql =
        "SELECT l.qid, r.id FROM nj_queries l LEFT OUTER JOIN nj_items r "
            + "EXACT NEAREST 3 BY SIMILARITY vector_cosine_similarity(l.q, r.vector)";
    assertThat(explain(sql)).contains("LanceNearestJoin[").contains("join=LEFT OUTER");
    List<String> got = rows(sql);
    assertThat(got).hasSize(12 * 3 + 1).contains("99,null").isEqualTo(sparks(sql));

    String none =
        "SELECT l.qid, r.id FROM nj_queries l LEFT OUTER JOIN "
            + "(SELECT * FROM nj_items WHERE tenant_id = 12345) r "
            + "APPROX NEAREST 2 BY DISTANCE vector_l2_distance(l.q, r.vector)";
    assertThat(rows(none)).hasSize(13).allMatch(r -> r.endsWith(",null"));
    assertThat(rows(none)).isEqualTo(sparks(none));
  }

  @Test
  void aRankingTheSearchDoesNotHaveStaysSparks() {
    // the left side's column against the right side's by BY DISTANCE on a similarity
    String sql =
        "SELECT l.qid, r.id FROM nj_queries l JOIN nj_items r "
            + "EXACT NEAREST 2 BY DISTANCE vector_cosine_similarity(l.q, r.vector)";
    assertThat(explain(sql)).doesNotContain("LanceNearestJoin");
    assertThat(rows(sql)).hasSize(24);
  }

  /** The query's rows, each as its values joined by commas, sorted. */
  private static List<String> rows(String sql) {
    List<String> out = new ArrayList<>();
    for (Row r : spark.sql(sql).collectAsList()) {
      out.add(r.mkString(","));
    }
    out.sort(null);
    return out;
  }

  /** The same query's rows as Spark's own rewrite answers it. */
  private static List<String> sparks(String sql) {
    spark.conf().set(NearestByJoinRule.ENABLED_CONF, "false");
    try {
      assertThat(explain(sql)).doesNotContain("LanceNearestJoin");
      return rows(sql);
    } finally {
      spark.conf().unset(NearestByJoinRule.ENABLED_CONF);
    }
  }

  private static String explain(String sql) {
    return spark.sql("EXPLAIN EXTENDED " + sql).first().getString(0);
  }
}
