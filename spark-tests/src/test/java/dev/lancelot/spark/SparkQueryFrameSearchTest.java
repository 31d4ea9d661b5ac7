package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.scalar.BTreeBuildParams;
import dev.lancelot.engine.index.scalar.BTreeIndexBuilder;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.query.InvalidQueryException;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.query.VectorSearch;
import dev.lancelot.engine.query.VectorSearchResult;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.ClusteredData;
import dev.lancelot.engine.testing.Rows;
import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.spark.search.LanceVectorSearch;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Query vectors from a DataFrame (SPEC S6): every query of the DataFrame gets exactly the answer it
 * gets alone (same rows, order and distances as the engine's local executor), across query
 * partitions and blocks, index segments and unindexed fragments, prefilter, postfilter and refine;
 * the queries' other columns are carried; SQL reaches it with {@code queries =>}; bad query vectors
 * fail with one message naming the column and the query.
 */
class SparkQueryFrameSearchTest extends SharedSpark {
  static final int DIM = 16;
  static final int CLUSTERS = 25;
  static Path dir;
  static float[][] queries;

  @BeforeAll
  static void build() throws Exception {
    dir = Files.createTempDirectory("spark-query-frame");
    write(0, 3000, WriteMode.CREATE);
    try (Dataset ds = Dataset.open(dir.toString())) {
      VectorIndexes.create(
              ds,
              "vector",
              VectorIndexSpec.of(IndexType.IVF_PQ, DistanceMetric.L2)
                  .withNumPartitions(6)
                  .withNumSubVectors(4))
          .close();
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      BTreeIndexBuilder.build(ds, BTreeBuildParams.of("tenant_id")).close();
    }
    write(3000, 400, WriteMode.APPEND);
    queries = ClusteredData.queries(20, DIM, CLUSTERS, 8, 21);
    spark
        .conf()
        .set("spark.lancelot.search.queryBlockSize", "6"); // several blocks per query partition
  }

  @AfterAll
  static void resetConf() {
    spark.conf().unset("spark.lancelot.search.queryBlockSize");
  }

  static void write(long first, int rows, WriteMode mode) throws Exception {
    try (VectorSchemaRoot b = ClusteredData.generate(allocator, first, rows, DIM, CLUSTERS, 8);
        ArrowReader r = ArrowStreams.readerOf(allocator, List.of(b))) {
      Dataset.write(dir.toString(), r, WriteOptions.of(mode).withMaxRowsPerFile(1500)).close();
    }
  }

  static org.apache.spark.sql.Dataset<Row> queryFrame(float[][] vectors) {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < vectors.length; i++) {
      Float[] boxed = new Float[vectors[i].length];
      for (int d = 0; d < boxed.length; d++) {
        boxed[d] = vectors[i][d];
      }
      rows.add(RowFactory.create(1000L + i, "q" + i, java.util.Arrays.asList(boxed)));
    }
    StructType schema =
        new StructType()
            .add("qid", DataTypes.LongType)
            .add("label", DataTypes.StringType)
            .add("embedding", DataTypes.createArrayType(DataTypes.FloatType));
    return spark.createDataFrame(rows, schema).repartition(3);
  }

  /**
   * (id, distance) per query id, in result order, from the engine's local executor one query at a
   * time.
   */
  static Map<Long, List<Object[]>> alone(VectorQuery.Builder params) {
    Map<Long, List<Object[]>> out = new TreeMap<>();
    try (Dataset ds = Dataset.open(dir.toString())) {
      for (int i = 0; i < queries.length; i++) {
        try (VectorSearchResult r = VectorSearch.search(ds, params.vector(queries[i]).build())) {
          List<Object[]> rows = new ArrayList<>();
          for (List<Object> row : Rows.of(r.rows())) {
            rows.add(new Object[] {row.get(0), row.get(row.size() - 1)});
          }
          out.put(1000L + i, rows);
        }
      }
    }
    return out;
  }

  static Map<Long, List<Object[]>> grouped(List<Row> rows) {
    Map<Long, List<Object[]>> out = new TreeMap<>();
    for (int i = 0; i < queries.length; i++) {
      out.put(1000L + i, new ArrayList<>());
    }
    rows.stream()
        .sorted(
            java.util.Comparator.<Row>comparingLong(r -> r.getLong(r.fieldIndex("qid")))
                .thenComparing(r -> r.getFloat(r.fieldIndex("_distance")))
                .thenComparing(r -> r.getLong(r.fieldIndex("id"))))
        .forEach(
            r ->
                out.get(r.getLong(r.fieldIndex("qid")))
                    .add(
                        new Object[] {
                          r.getLong(r.fieldIndex("id")), r.getFloat(r.fieldIndex("_distance"))
                        }));
    return out;
  }

  static void assertSame(Map<Long, List<Object[]>> expected, Map<Long, List<Object[]>> got) {
    assertThat(got.keySet()).isEqualTo(expected.keySet());
    for (Long qid : expected.keySet()) {
      List<Object[]> e = expected.get(qid);
      List<Object[]> g = got.get(qid);
      assertThat(g).as("query %d", qid).hasSameSizeAs(e);
      for (int i = 0; i < e.size(); i++) {
        assertThat(g.get(i)[0]).as("query %d row %d", qid, i).isEqualTo(e.get(i)[0]);
        assertThat((Float) g.get(i)[1]).isCloseTo((Float) e.get(i)[1], within(1e-5f));
      }
    }
  }

  @Test
  void everyQueryGetsTheAnswerItGetsAlone() {
    for (VectorQuery.Builder params :
        List.of(
            VectorQuery.builder("vector").k(7).nprobes(2).columns("id"),
            VectorQuery.builder("vector").k(5).nprobes(1).refineFactor(3).columns("id"),
            VectorQuery.builder("vector")
                .k(6)
                .nprobes(2)
                .filter("tenant_id < 10")
                .prefilter(true)
                .columns("id"),
            VectorQuery.builder("vector").k(6).nprobes(2).filter("tenant_id < 10").columns("id"))) {
      List<Row> rows =
          LanceVectorSearch.search(
                  spark, dir.toString(), queryFrame(queries), "embedding", params.buildParameters())
              .collectAsList();
      assertSame(alone(params), grouped(rows));
    }
  }

  /**
   * Timing each query (for evaluation jobs): the same answers, each query's statistics on its rows,
   * and a query the prefilter leaves without results still has a row.
   */
  @Test
  void timingEachQueryAddsItsStatisticsAndKeepsTheAnswers() {
    VectorQuery.Builder params = VectorQuery.builder("vector").k(5).nprobes(2).columns("id");
    org.apache.spark.sql.Dataset<Row> df =
        LanceVectorSearch.searchTimingEachQuery(
            spark, dir.toString(), 0, queryFrame(queries), "embedding", params.buildParameters());
    assertThat(df.schema().fieldNames())
        .containsExactly(
            "qid",
            "label",
            "id",
            "_distance",
            LanceVectorSearch.SEARCH_MS,
            LanceVectorSearch.PARTITIONS_PROBED,
            LanceVectorSearch.DISTANCES_COMPUTED);
    List<Row> rows = df.collectAsList();
    assertSame(alone(params), grouped(rows));
    Map<Long, List<Object>> statsPerQuery = new TreeMap<>();
    for (Row r : rows) {
      List<Object> stats = List.of(r.get(4), r.get(5), r.get(6));
      assertThat(statsPerQuery.putIfAbsent(r.getLong(0), stats))
          .as("stats of query %d on each row", r.getLong(0))
          .isIn(null, stats);
      assertThat(r.getDouble(4)).isPositive();
      assertThat(r.getLong(5))
          .as("partitions probed: nprobes=2 in the index")
          .isGreaterThanOrEqualTo(2);
      assertThat(r.getLong(6)).isPositive();
    }
    assertThat(statsPerQuery).hasSize(queries.length);

    List<Row> none =
        LanceVectorSearch.searchTimingEachQuery(
                spark,
                dir.toString(),
                0,
                queryFrame(queries),
                "embedding",
                VectorQuery.builder("vector")
                    .k(5)
                    .nprobes(2)
                    .columns("id")
                    .filter("tenant_id < 0")
                    .prefilter(true)
                    .buildParameters())
            .collectAsList();
    assertThat(none).hasSize(queries.length);
    for (Row r : none) {
      assertThat(r.isNullAt(2)).as("no result row").isTrue();
      assertThat(r.isNullAt(3)).isTrue();
      assertThat(r.getDouble(4)).isPositive();
    }
  }

  @Test
  void otherColumnsAreCarriedAndTheOutputSchemaIsKnownBeforeRunning() {
    org.apache.spark.sql.Dataset<Row> df =
        LanceVectorSearch.search(
            spark,
            dir.toString(),
            queryFrame(queries),
            "embedding",
            Map.of(
                "column", "vector", "k", 3, "nprobes", 2, "columns", List.of("id", "tenant_id")));
    assertThat(df.schema().fieldNames())
        .containsExactly("qid", "label", "id", "tenant_id", "_distance");
    List<Row> rows = df.collectAsList();
    assertThat(rows).hasSize(3 * queries.length);
    for (Row r : rows) {
      assertThat(r.getString(1)).isEqualTo("q" + (r.getLong(0) - 1000));
    }
  }

  @Test
  void sqlTakesTheQueriesFromATableOrView() {
    queryFrame(queries).createOrReplaceTempView("frame_queries");
    List<Row> rows =
        spark
            .sql(
                "SELECT qid, id, _distance FROM lance_vector_search('"
                    + dir
                    + "', column => 'vector',"
                    + " queries => 'frame_queries', query_column => 'embedding', k => 4, nprobes => 2, columns => array('id'))")
            .collectAsList();
    assertSame(alone(VectorQuery.builder("vector").k(4).nprobes(2).columns("id")), grouped(rows));
  }

  /** Carried rows of fixed width only (no string): each query keeps its own id. */
  @Test
  void aQueryIdAloneIsCarriedPerQuery() {
    org.apache.spark.sql.Dataset<Row> idOnly = queryFrame(queries).select("qid", "embedding");
    List<Row> rows =
        LanceVectorSearch.search(
                spark,
                dir.toString(),
                idOnly,
                "embedding",
                VectorQuery.builder("vector").k(3).nprobes(2).columns("id").buildParameters())
            .collectAsList();
    assertSame(alone(VectorQuery.builder("vector").k(3).nprobes(2).columns("id")), grouped(rows));
  }

  @Test
  void queryVectorsOfDoublesAreAccepted() {
    org.apache.spark.sql.Dataset<Row> doubles =
        queryFrame(queries)
            .selectExpr("qid", "label", "cast(embedding as array<double>) as embedding");
    List<Row> rows =
        LanceVectorSearch.search(
                spark,
                dir.toString(),
                doubles,
                "embedding",
                VectorQuery.builder("vector").k(3).nprobes(2).columns("id").buildParameters())
            .collectAsList();
    assertSame(alone(VectorQuery.builder("vector").k(3).nprobes(2).columns("id")), grouped(rows));
  }

  @Test
  void badQueryVectorsFailWithOneMessageNamingTheColumnAndTheQuery() {
    VectorQuery params = VectorQuery.builder("vector").k(3).columns("id").buildParameters();
    assertThatThrownBy(
            () ->
                LanceVectorSearch.search(spark, dir.toString(), queryFrame(queries), "emb", params))
        .isInstanceOf(InvalidQueryException.class)
        .hasMessageContaining("no such column")
        .hasMessageContaining("embedding");
    assertThatThrownBy(
            () ->
                LanceVectorSearch.search(
                    spark, dir.toString(), queryFrame(queries), "label", params))
        .isInstanceOf(InvalidQueryException.class)
        .hasMessageContaining("column \"label\": it is string");
    assertThatThrownBy(
            () ->
                LanceVectorSearch.search(
                    spark,
                    dir.toString(),
                    queryFrame(queries).withColumnRenamed("qid", "id"),
                    "embedding",
                    params))
        .isInstanceOf(InvalidQueryException.class)
        .hasMessageContaining("a column \"id\"");
    assertThatThrownBy(
            () ->
                LanceVectorSearch.search(
                    spark,
                    dir.toString(),
                    queryFrame(queries),
                    "embedding",
                    VectorQuery.builder("vector").vector(queries[0]).build()))
        .isInstanceOf(InvalidQueryException.class)
        .hasMessageContaining("leave q unset");

    float[][] shortOne = queries.clone();
    shortOne[4] = java.util.Arrays.copyOf(queries[4], 8);
    assertThatThrownBy(
            () ->
                LanceVectorSearch.search(
                        spark, dir.toString(), queryFrame(shortOne), "embedding", params)
                    .collectAsList())
        .hasMessageContaining(
            "query vectors from column \"embedding\": query qid=1004 "
                + "has 8 dimensions but column \"vector\" holds 16-dimensional vectors");
    float[][] nan = queries.clone();
    nan[6] = queries[6].clone();
    nan[6][2] = Float.NaN;
    assertThatThrownBy(
            () ->
                LanceVectorSearch.search(
                        spark, dir.toString(), queryFrame(nan), "embedding", params)
                    .collectAsList())
        .hasMessageContaining("query qid=1006 has a non-finite value (NaN) at position 2");
    org.apache.spark.sql.Dataset<Row> withNull =
        queryFrame(queries)
            .selectExpr("qid", "label", "if(qid = 1009, null, embedding) as embedding");
    assertThatThrownBy(
            () ->
                LanceVectorSearch.search(spark, dir.toString(), withNull, "embedding", params)
                    .collectAsList())
        .hasMessageContaining("query qid=1009 is null");
  }
}
