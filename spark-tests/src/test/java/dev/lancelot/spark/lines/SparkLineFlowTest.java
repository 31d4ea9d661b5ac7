package dev.lancelot.spark.lines;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.query.VectorSearch;
import dev.lancelot.engine.query.VectorSearchResult;
import dev.lancelot.engine.query.eval.RecallEvaluator;
import dev.lancelot.spark.SharedSpark;
import dev.lancelot.spark.search.LanceVectorSearch;
import dev.lancelot.spark.search.SparkRecall;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reference flow of every Spark line, in one session of that line (Kryo, registration
 * required): write, filtered read, index build from SQL, append, table-function search with a
 * prefilter, DataFrame-of-queries search, recall, DELETE / UPDATE / MERGE INTO, time travel and the
 * catalog (CREATE TABLE AS SELECT, SHOW TABLES, DROP TABLE, DROP NAMESPACE, metadata tables,
 * distance functions), ORDER BY distance LIMIT k answered by the search, and the maintenance
 * procedures through {@code CALL} (on Spark 3.5, which has no stored procedures, the {@code CALL}
 * of lancelot's parser extension, D76).
 *
 * <p>Compiled and run by every line module under spark-lines/ against that line's Spark jars, and
 * by spark-tests on the primary line. Each Spark answer is checked against an oracle that does not
 * go through Spark's DataSource V2: searches and recall against the engine's local search of the
 * same dataset version, reads and row-level changes against the same computation in plain Spark.
 */
@SharedSpark.WithKryo
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SparkLineFlowTest extends SharedSpark {
  static final int DIM = 16;
  private static final String DISTANCE = "_distance";

  @TempDir static Path dir;

  @BeforeAll
  static void catalogUnderTheTestsDirectory() {
    spark.conf().set("spark.sql.catalog.lance.root", dir.resolve("catalog").toUri().toString());
  }

  private static String path() {
    return dir.resolve("items.lance").toUri().toString();
  }

  @Test
  @Order(1)
  void writesAndReadsWithAFilter() {
    items(0, 3000, 4).write().format("lance").mode("overwrite").save(path());
    assertThat(spark.read().format("lance").load(path()).count()).isEqualTo(3000);
    assertThat(version()).isEqualTo(1);

    String filter = "tenant_id = 3 AND id < 400";
    List<Long> expected = ids(items(0, 3000, 1).filter(filter).select("id").orderBy("id"));
    assertThat(expected).hasSizeGreaterThan(20);
    assertThat(ids(spark.read().format("lance").load(path()).filter(filter).select("id")))
        .isEqualTo(expected);
  }

  /**
   * {@code CALL lance.system.create_index}: Spark 4's own {@code CALL}, and on Spark 3.5, which has
   * no stored procedures, the {@code CALL} of lancelot's parser extension (D76).
   */
  @Test
  @Order(2)
  void buildsAnIndexFromSql() {
    String call =
        "CALL lance.system.create_index(table => '"
            + path()
            + "', column => 'vector', index_type => 'IVF_PQ', metric => 'l2', num_partitions => 4, "
            + "num_sub_vectors => 4, seed => 7)";
    // a comment before the statement, a keyword in lower case
    Row created = spark.sql("/* build */ -- the index\n  call " + call.substring(5)).first();
    assertThat(created.getString(created.fieldIndex("name"))).isEqualTo("vector_idx");
    assertThat(created.getLong(created.fieldIndex("indexed_rows"))).isEqualTo(3000);
    assertThat(created.getLong(created.fieldIndex("version"))).isEqualTo(2);
    try (Dataset ds = Dataset.open(path())) {
      assertThat(ds.version()).isEqualTo(2);
      assertThat(ds.indexes().names()).containsExactly("vector_idx");
    }
  }

  @Test
  @Order(3)
  void appendsAnUnindexedFragment() {
    items(3000, 600, 2).write().format("lance").mode("append").save(path());
    assertThat(spark.read().format("lance").load(path()).count()).isEqualTo(3600);
    assertThat(version()).isEqualTo(3);
  }

  @Test
  @Order(4)
  void searchesFromTheTableFunctionWithAPrefilter() {
    float[] q = queryVector(7);
    List<Row> rows =
        spark
            .sql(
                "SELECT id, tenant_id, _distance FROM lance_vector_search('"
                    + path()
                    + "', column => 'vector', q => array("
                    + sqlFloats(q)
                    + "), k => 5, nprobes => 2, refine_factor => 2, filter => 'tenant_id = 3', "
                    + "prefilter => true)")
            .collectAsList();
    assertThat(rows).hasSize(5).allSatisfy(r -> assertThat(r.getInt(1)).isEqualTo(3));
    Map<Long, Float> got = new LinkedHashMap<>();
    rows.forEach(r -> got.put(r.getLong(0), r.getFloat(2)));
    VectorQuery query =
        VectorQuery.builder("vector")
            .vector(q)
            .k(5)
            .nprobes(2)
            .refineFactor(2)
            .filter("tenant_id = 3")
            .prefilter(true)
            .columns("id")
            .build();
    assertThat(got).containsExactlyEntriesOf(engineSearch(query));
  }

  @Test
  @Order(5)
  void searchesADataFrameOfQueries() {
    StructType schema =
        new StructType()
            .add("qid", DataTypes.IntegerType)
            .add("embedding", DataTypes.createArrayType(DataTypes.FloatType));
    long[] ids = {11, 1234, 3333};
    List<Row> queries = new ArrayList<>();
    for (int i = 0; i < ids.length; i++) {
      queries.add(RowFactory.create(i, boxed(queryVector(ids[i]))));
    }
    VectorQuery params =
        VectorQuery.builder("vector").k(10).nprobes(2).columns("id").buildParameters();
    List<Row> rows =
        LanceVectorSearch.search(
                spark, path(), spark.createDataFrame(queries, schema), "embedding", params)
            .collectAsList();
    Map<Integer, Map<Long, Float>> got = new TreeMap<>();
    for (Row r : rows) {
      got.computeIfAbsent(r.getInt(r.fieldIndex("qid")), k -> new LinkedHashMap<>())
          .put(r.getLong(r.fieldIndex("id")), r.getFloat(r.fieldIndex(DISTANCE)));
    }
    assertThat(got).containsOnlyKeys(0, 1, 2);
    for (int i = 0; i < ids.length; i++) {
      assertThat(got.get(i))
          .as("query %d", i)
          .containsExactlyEntriesOf(
              engineSearch(params.toBuilder().vector(queryVector(ids[i])).build()));
    }
  }

  @Test
  @Order(6)
  void measuresRecall() {
    VectorQuery batch =
        VectorQuery.builder("vector")
            .vectors(queryVector(11), queryVector(1234), queryVector(3333))
            .k(10)
            .nprobes(1)
            .build();
    SparkRecall recall = LanceVectorSearch.recall(spark, path(), batch);
    assertThat(recall.version()).isEqualTo(3);
    assertThat(recall.queries()).isEqualTo(3);
    double expected = 0;
    try (Dataset ds = Dataset.open(path())) {
      VectorQuery withIds = batch.toBuilder().withRowId(true).build();
      List<Set<Long>> searched = rowIds(ds, withIds);
      List<Set<Long>> exact = rowIds(ds, VectorSearch.exactCounterpart(ds, withIds));
      for (int i = 0; i < 3; i++) {
        expected += RecallEvaluator.recallOf(searched.get(i), exact.get(i), 10) / 3;
      }
    }
    assertThat(recall.recall()).isCloseTo(expected, org.assertj.core.data.Offset.offset(1e-9));
  }

  @Test
  @Order(7)
  void createsATableAsSelectThenDeletesUpdatesAndMerges() {
    items(0, 500, 2).createOrReplaceTempView("line_src");
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lance.line");
    spark.sql("CREATE TABLE lance.line.items AS SELECT * FROM line_src"); // version 1
    assertThat(spark.sql("SELECT count(*) FROM lance.line.items").first().getLong(0))
        .isEqualTo(500);

    spark.sql("DELETE FROM lance.line.items WHERE tenant_id = 9"); // version 2
    spark.sql("UPDATE lance.line.items SET tenant_id = 100 WHERE id < 20"); // version 3
    spark.sql(
        "MERGE INTO lance.line.items t USING (SELECT * FROM line_src WHERE id >= 490 UNION ALL "
            + "SELECT id, tenant_id, vector FROM ("
            + itemsSql(500, 510)
            + ")) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET tenant_id = 200 "
            + "WHEN NOT MATCHED THEN INSERT (id, tenant_id, vector) VALUES (s.id, 300, s.vector)");
    Map<Long, Integer> expected = new TreeMap<>();
    for (Row r :
        spark
            .sql(
                "SELECT id, CASE WHEN id >= 490 THEN 200 WHEN id < 20 THEN 100 ELSE tenant_id END"
                    + " FROM line_src WHERE tenant_id != 9 UNION ALL SELECT id, 300 FROM range(500, 510)"
                    + " UNION ALL SELECT id, 300 FROM line_src WHERE tenant_id = 9 AND id >= 490")
            .collectAsList()) {
      expected.put(r.getLong(0), r.getInt(1));
    }
    assertThat(tenants("SELECT id, tenant_id FROM lance.line.items")).isEqualTo(expected);
  }

  @Test
  @Order(8)
  void travelsInTime() {
    assertThat(
            spark.sql("SELECT count(*) FROM lance.line.items VERSION AS OF 1").first().getLong(0))
        .isEqualTo(500);
    assertThat(
            spark
                .sql("SELECT count(*) FROM lance.line.items VERSION AS OF 2 WHERE tenant_id = 9")
                .first()
                .getLong(0))
        .isZero();
    assertThat(spark.read().format("lance").option("versionAsOf", 1).load(path()).count())
        .isEqualTo(3000);
    // the metadata tables and the catalog's distance functions
    assertThat(
            spark
                .sql("SELECT version, rows FROM lance.line.items.versions ORDER BY version")
                .collectAsList())
        .extracting(r -> r.getLong(1))
        .startsWith(500L);
    assertThat(
            spark
                .sql("SELECT count(*) FROM lance.line.items.fragments VERSION AS OF 1")
                .first()
                .getLong(0))
        .isPositive();
    assertThat(
            spark
                .sql(
                    // over a table: a query without FROM ships a GenericInternalRow, which a
                    // registrationRequired Kryo session of Spark 3.5 refuses (Spark's own row)
                    "SELECT lance.system.l2_distance(array(CAST(1 AS FLOAT), CAST(2 AS FLOAT)), "
                        + "array(CAST(1 AS FLOAT), CAST(4 AS FLOAT))) + "
                        + "lance.system.l2_distance(vector, vector) FROM lance.line.items LIMIT 1")
                .first()
                .getFloat(0))
        .isEqualTo(4f);
  }

  @Test
  @Order(9)
  void listsAndDropsTables() {
    assertThat(spark.sql("SHOW TABLES IN lance.line").collectAsList())
        .extracting(r -> r.getString(1))
        .containsExactly("items");
    assertThat(spark.table("lance.line.items").schema().fieldNames())
        .containsExactly("id", "tenant_id", "vector");
    spark.sql("DROP TABLE lance.line.items");
    assertThat(spark.sql("SHOW TABLES IN lance.line").collectAsList()).isEmpty();
    spark.sql("DROP NAMESPACE lance.line");
    assertThat(spark.sql("SHOW NAMESPACES IN lance").collectAsList())
        .extracting(r -> r.getString(0))
        .doesNotContain("line");
  }

  /**
   * SPEC S8 (D65): ORDER BY a distance LIMIT k is answered by the vector search — the IVF_PQ (l2)
   * index for l2, with the session's nprobes and refine factor, giving the engine's answer; flat
   * for cosine and dot, giving exactly the plain scan and sort's. On Spark 4.2 and later, Spark's
   * own vector functions too.
   */
  @Test
  @Order(10)
  void answersOrderByDistanceLimitWithTheSearch() {
    spark.read().format("lance").load(path()).createOrReplaceTempView("line_vectors");
    float[] q = queryVector(1234);
    String constant = "array(" + sqlFloats(q) + ")";
    spark.conf().set("spark.lancelot.search.nprobes", "2");
    spark.conf().set("spark.lancelot.search.refineFactor", "3");
    try {
      String indexed =
          "SELECT id, lance.system.l2_distance(vector, "
              + constant
              + ") AS d FROM line_vectors WHERE tenant_id < 6 ORDER BY d NULLS LAST LIMIT 5";
      assertThat(explain(indexed)).contains("LanceVectorSearch[").contains("ANNSubIndex");
      VectorQuery query =
          VectorQuery.builder("vector")
              .vector(q)
              .k(5)
              .nprobes(2)
              .refineFactor(3)
              .filter("tenant_id < 6")
              .prefilter(true)
              .columns("id")
              .build();
      assertThat(firstColumn(indexed)).containsExactlyElementsOf(engineSearch(query).keySet());
      // a LANCE_SEARCH hint sets this query's settings over the session's
      String hinted = indexed.replace("SELECT id,", "SELECT /*+ LANCE_SEARCH('nprobes=1') */ id,");
      assertThat(explain(hinted)).contains("nprobes=1..1");
      assertThat(firstColumn(hinted))
          .containsExactlyElementsOf(
              engineSearch(
                      VectorQuery.builder("vector")
                          .vector(q)
                          .k(5)
                          .nprobes(1)
                          .refineFactor(3)
                          .filter("tenant_id < 6")
                          .prefilter(true)
                          .columns("id")
                          .build())
                  .keySet());

      List<String> exact =
          new ArrayList<>(
              List.of(
                  "SELECT id, lance.system.cosine_distance(vector, "
                      + constant
                      + ") AS d FROM line_vectors WHERE tenant_id = 3 ORDER BY d NULLS LAST LIMIT 4",
                  "SELECT id FROM line_vectors ORDER BY lance.system.dot_distance("
                      + constant
                      + ", vector) ASC NULLS LAST LIMIT 3"));
      if (sparkHasVectorFunctions()) {
        exact.add(
            "SELECT id, vector_cosine_similarity(vector, "
                + constant
                + ") AS s FROM line_vectors WHERE tenant_id = 3 ORDER BY s DESC LIMIT 4");
        exact.add(
            "SELECT id FROM line_vectors ORDER BY vector_inner_product(vector, "
                + constant
                + ") DESC LIMIT 3");
        String sparkL2 =
            "SELECT id, vector_l2_distance(vector, "
                + constant
                + ") AS d FROM line_vectors WHERE tenant_id < 6 ORDER BY d NULLS LAST LIMIT 5";
        assertThat(explain(sparkL2))
            .contains("answers=ORDER BY vector_l2_distance(vector, <query>) ASC LIMIT 5")
            .contains("ANNSubIndex");
        assertThat(firstColumn(sparkL2)).containsExactlyElementsOf(engineSearch(query).keySet());
      }
      for (String sql : exact) {
        assertThat(explain(sql)).as(sql).contains("LanceVectorSearch[").contains("FlatKnn");
        List<Row> searched = spark.sql(sql).collectAsList();
        spark.conf().set("spark.lancelot.search.orderByLimit.enabled", "false");
        try {
          assertThat(explain(sql)).as(sql).doesNotContain("LanceVectorSearch");
          assertThat(searched).as(sql).isNotEmpty().isEqualTo(spark.sql(sql).collectAsList());
        } finally {
          spark.conf().unset("spark.lancelot.search.orderByLimit.enabled");
        }
      }
    } finally {
      spark.conf().unset("spark.lancelot.search.nprobes");
      spark.conf().unset("spark.lancelot.search.refineFactor");
    }
  }

  /**
   * Tags, compaction and the index listing through {@code CALL}, with positional and named
   * arguments, and through lance-spark's statements; the procedures' own argument checks; on Spark
   * 3.5, a malformed {@code CALL} is refused with its position by lancelot's parser (Spark 4's
   * parser reports its own error).
   */
  @Test
  @Order(11)
  void runsTheMaintenanceProceduresThroughCall() {
    String table = "'" + path() + "'";
    long fragments;
    try (Dataset ds = Dataset.open(path())) {
      assertThat(ds.version()).isEqualTo(3);
      fragments = ds.fragments().size();
    }
    assertThat(fragments).isGreaterThan(1);
    Row tag =
        spark.sql("CALL lance.system.create_tag(" + table + ", 'indexed', version => 2)").first();
    assertThat(tag.getString(tag.fieldIndex("tag"))).isEqualTo("indexed");
    assertThat(tag.getLong(tag.fieldIndex("version"))).isEqualTo(2);
    assertThat(spark.sql("CALL lance.system.list_tags(table => " + table + ")").collectAsList())
        .extracting(r -> r.getString(r.fieldIndex("tag")))
        .containsExactly("indexed");

    Row compacted =
        spark
            .sql(
                "CALL lance.system.compact(table => "
                    + table
                    + ", target_rows_per_fragment => 1000000);")
            .first();
    assertThat(compacted.getLong(compacted.fieldIndex("version"))).isEqualTo(4);
    assertThat(compacted.getLong(compacted.fieldIndex("fragments_removed"))).isEqualTo(fragments);
    // the indexed and the appended fragments are compacted apart
    long added = compacted.getLong(compacted.fieldIndex("fragments_added"));
    assertThat(added).isPositive().isLessThan(fragments);
    try (Dataset ds = Dataset.open(path())) {
      assertThat(ds.version()).isEqualTo(4);
      assertThat(ds.fragments()).hasSize((int) added);
      assertThat(ds.countRows()).isEqualTo(3600);
      assertThat(ds.tags().version("indexed")).isEqualTo(2);
    }
    Row index = spark.sql("CALL lance.system.list_indexes(" + table + ")").first();
    assertThat(index.getString(index.fieldIndex("name"))).isEqualTo("vector_idx");

    // lance-spark's statements, the same procedures (D76)
    String named = "lance.`" + path() + "`";
    assertThat(spark.sql("SHOW INDEXES FROM " + named).collectAsList())
        .extracting(r -> r.getString(r.fieldIndex("name")))
        .containsExactly("vector_idx");
    spark.sql("ALTER TABLE " + named + " DROP TAG indexed");
    spark.sql("ALTER TABLE " + named + " CREATE TAG compacted AS OF VERSION 4");
    try (Dataset ds = Dataset.open(path())) {
      assertThat(ds.tags().list()).extracting(t -> t.name()).containsExactly("compacted");
      assertThat(ds.tags().version("compacted")).isEqualTo(4);
    }

    assertThatThrownBy(() -> spark.sql("CALL lance.system.compact(tabel => " + table + ")"))
        .hasStackTraceContaining("unknown parameter \"tabel\". Did you mean \"table\"?");
    if (spark.version().startsWith("3.")) {
      assertThatThrownBy(() -> spark.sql("CALL lance.system.compact(table => , seed => 1)"))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageStartingWith(
              "Syntax error at line 1, column 36: expected the value of argument table,"
                  + " found ','");
      assertThatThrownBy(() -> spark.sql("CALL lance.system.compact(table => 'x', 'y')"))
          .hasMessageContaining("positional arguments come first");
      assertThatThrownBy(() -> spark.sql("CALL spark_catalog.system.compact(table => 'x')"))
          .hasMessageContaining("catalog spark_catalog is not a lance catalog");
      // other syntax errors stay Spark's own
      assertThatThrownBy(() -> spark.sql("CALLS lance.system.compact()"))
          .isInstanceOf(org.apache.spark.sql.catalyst.parser.ParseException.class);
    }
    try (Dataset ds = Dataset.open(path())) {
      assertThat(ds.version()).isEqualTo(4);
    }
  }

  /** Spark 4.2 added vector_l2_distance, vector_cosine_similarity and vector_inner_product. */
  private static boolean sparkHasVectorFunctions() {
    String[] v = spark.version().split("\\.");
    int major = Integer.parseInt(v[0]);
    return major > 4 || (major == 4 && Integer.parseInt(v[1]) >= 2);
  }

  private static String explain(String sql) {
    return spark.sql("EXPLAIN EXTENDED " + sql).first().getString(0);
  }

  private static List<Long> firstColumn(String sql) {
    List<Long> out = new ArrayList<>();
    spark.sql(sql).collectAsList().forEach(r -> out.add(r.getLong(0)));
    return out;
  }

  /** The answer of the engine's local search of one query vector: id to distance, in rank order. */
  private static Map<Long, Float> engineSearch(VectorQuery query) {
    try (Dataset ds = Dataset.open(path());
        VectorSearchResult result = VectorSearch.search(ds, query)) {
      VectorSchemaRoot root = result.rows();
      Float4Vector distance = (Float4Vector) root.getVector(DISTANCE);
      BigIntVector id = (BigIntVector) root.getVector("id");
      Map<Long, Float> out = new LinkedHashMap<>();
      for (int i = 0; i < root.getRowCount(); i++) {
        out.put(id.get(i), distance.get(i));
      }
      return out;
    }
  }

  private static List<Set<Long>> rowIds(Dataset ds, VectorQuery query) {
    List<Set<Long>> out = new ArrayList<>();
    for (int i = 0; i < query.vectors().length; i++) {
      out.add(new HashSet<>());
    }
    try (VectorSearchResult result = VectorSearch.search(ds, query)) {
      VectorSchemaRoot root = result.rows();
      UInt8Vector rowId = (UInt8Vector) root.getVector(dev.lancelot.engine.Scanner.ROW_ID);
      org.apache.arrow.vector.IntVector queryIndex =
          (org.apache.arrow.vector.IntVector) root.getVector("query_index");
      for (int i = 0; i < root.getRowCount(); i++) {
        out.get(queryIndex.get(i)).add(rowId.get(i));
      }
    }
    return out;
  }

  private static long version() {
    try (Dataset ds = Dataset.open(path())) {
      return ds.version();
    }
  }

  private static List<Long> ids(org.apache.spark.sql.Dataset<Row> rows) {
    List<Long> out = new ArrayList<>();
    rows.orderBy("id").collectAsList().forEach(r -> out.add(r.getLong(0)));
    return out;
  }

  private static Map<Long, Integer> tenants(String sql) {
    Map<Long, Integer> out = new TreeMap<>();
    spark.sql(sql).collectAsList().forEach(r -> out.put(r.getLong(0), r.getInt(1)));
    return out;
  }

  /**
   * Rows {@code [from, from + n)}: tenant_id in 0..9 and {@value #DIM}-dim vectors around 16
   * centres, derived from hashes, so every run and every line writes the same data.
   */
  static org.apache.spark.sql.Dataset<Row> items(long from, long n, int partitions) {
    return spark
        .range(from, from + n, 1, partitions)
        .toDF()
        .select(
            col("id"),
            expr("cast(pmod(hash(id, 3), 10) as int)").as("tenant_id"),
            expr(vectorSql())
                .as(
                    "vector",
                    new MetadataBuilder().putLong("arrow.fixed-size-list.size", DIM).build()));
  }

  private static String itemsSql(long from, long to) {
    return "SELECT id, cast(pmod(hash(id, 3), 10) as int) AS tenant_id, "
        + vectorSql()
        + " AS vector FROM range("
        + from
        + ", "
        + to
        + ")";
  }

  private static String vectorSql() {
    return "transform(sequence(1, "
        + DIM
        + "), i -> cast(hash(id % 16, i) / 2147483648.0 + hash(id, i, 7) / 8589934592.0 as float))";
  }

  /** The stored vector of row {@code id} moved by +0.01 per coordinate. */
  private static float[] queryVector(long id) {
    Row r = spark.read().format("lance").load(path()).filter("id = " + id).select("vector").first();
    List<Float> v = r.getList(0);
    float[] q = new float[v.size()];
    for (int i = 0; i < q.length; i++) {
      q[i] = v.get(i) + 0.01f;
    }
    return q;
  }

  private static List<Float> boxed(float[] v) {
    List<Float> out = new ArrayList<>();
    for (float f : v) {
      out.add(f);
    }
    return out;
  }

  private static String sqlFloats(float[] q) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < q.length; i++) {
      sb.append(i == 0 ? "" : ", ").append("cast(").append(q[i]).append(" as float)");
    }
    return sb.toString();
  }
}
