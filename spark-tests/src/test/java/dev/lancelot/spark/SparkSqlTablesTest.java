package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.VersionInfo;
import dev.lancelot.engine.testing.LanceOracle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Catalog {@code lance} used from SQL alone: CREATE TABLE (an empty dataset lance-core reads),
 * INSERT, indexes by CALL, search by table name, DELETE FROM (deleted rows gone from search and
 * from lance-core's reading; UPDATE and MERGE INTO are SparkRowLevelTest's), DESCRIBE, VERSION /
 * TIMESTAMP AS OF (and the reader options), DROP TABLE, saveAsTable, and each refusal's message.
 */
class SparkSqlTablesTest extends SharedSpark {
  static final int DIM = SparkProcedureTest.DIM;
  static final DateTimeFormatter SQL_TIMESTAMP =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS")
          .withZone(ZoneOffset.UTC); // the session is UTC
  static Path root;

  @BeforeAll
  static void rootTheCatalog() throws Exception {
    root = Files.createTempDirectory("lance-sql-tables");
    spark.conf().set("spark.sql.catalog.lance.root", root.toString());
    spark.sql("CREATE NAMESPACE lance.shop");
  }

  static String location(String table) {
    return root.resolve("shop").resolve(table + ".lance").toUri().toString();
  }

  static long count(String sql) {
    return spark.sql(sql).first().getLong(0);
  }

  static List<Long> searchIds(String table, long near, int k) {
    return spark
        .sql(
            "SELECT id FROM lance_vector_search('"
                + table
                + "', column => 'vector', q => array("
                + SparkVectorSearchTest.toSql(SparkProcedureTest.vectorOf(near))
                + "), k => "
                + k
                + ", nprobes => 4)")
        .collectAsList()
        .stream()
        .map(r -> r.getLong(0))
        .toList();
  }

  /** A timestamp literal at or just after {@code t}, to the microsecond Spark keeps. */
  static String asOf(Instant t) {
    return SQL_TIMESTAMP.format(t.plusNanos(999).truncatedTo(ChronoUnit.MICROS));
  }

  static Map<String, String> describe(String table) {
    Map<String, String> out = new HashMap<>();
    for (Row r : spark.sql("DESCRIBE TABLE EXTENDED " + table).collectAsList()) {
      out.put(r.getString(0), r.getString(1));
    }
    return out;
  }

  static List<Long> vectorSearchIds(String table, long near, int k) {
    return spark
        .sql(
            "SELECT id FROM VECTOR_SEARCH(table => '"
                + table
                + "', query_vector => array("
                + SparkVectorSearchTest.toSql(SparkProcedureTest.vectorOf(near))
                + "), vector_column => 'vector', "
                + "num_results => "
                + k
                + ", nprobes => 4, refine_factor => 10)")
        .collectAsList()
        .stream()
        .map(r -> r.getLong(0))
        .toList();
  }

  /**
   * Everything a SQL-only session does to one table, start to end: create, insert, index, search
   * under both function names, DELETE / UPDATE / MERGE with searches still right (deleted rows
   * never found, updated and inserted rows found), time travel, compact, clean up, and lance-core
   * reading the result row for row and searching it the same way.
   */
  @Test
  void sqlOnlySessionFromCreateToCleanup() throws Exception {
    String table = "lance.shop.done";
    spark.sql(
        "CREATE TABLE "
            + table
            + " (id BIGINT, tenant_id INT, vector ARRAY<FLOAT>) "
            + "TBLPROPERTIES ('vector.arrow.fixed-size-list.size' = '"
            + DIM
            + "')"); // v1
    spark.sql("INSERT INTO " + table + " " + SparkProcedureTest.items(0, 2000)); // v2
    spark.sql(
        "INSERT INTO " + table + " " + SparkProcedureTest.items(2000, 2500)); // v3, small fragments
    spark.sql(
        "CALL lance.system.create_index(table => 'shop.done', column => 'vector', index_type => 'IVF_PQ', "
            + "num_partitions => 4, num_sub_vectors => 2, seed => 3)"); // v4
    spark.sql(
        "CALL lance.system.create_scalar_index(table => 'shop.done', column => 'tenant_id')"); // v5
    String location = location("done");
    List<Long> near42 = vectorSearchIds(table, 42, 5);
    assertThat(near42.get(0)).isEqualTo(42L);
    assertThat(
            spark
                .sql(
                    "SELECT id FROM lance_vector_search('"
                        + table
                        + "', column => 'vector', q => array("
                        + SparkVectorSearchTest.toSql(SparkProcedureTest.vectorOf(42))
                        + "), k => 5, nprobes => 4, refine_factor => 10)")
                .collectAsList())
        .extracting(r -> r.getLong(0))
        .containsExactlyElementsOf(near42);

    spark.sql("DELETE FROM " + table + " WHERE id % 10 = 7"); // v6: arithmetic, 250 rows
    spark.sql(
        "UPDATE "
            + table
            + " SET vector = transform(sequence(1, "
            + DIM
            + "), i -> cast(sin(42 * i) as float)) "
            + "WHERE id = 1500"); // v7: row 1500 now sits next to row 42
    spark.sql(
        "MERGE INTO "
            + table
            + " t USING (SELECT id, cast(55 as int) AS tenant_id, transform(sequence(1, "
            + DIM
            + "), i -> cast(sin(id * i) as float)) AS vector FROM range(0, 5010) WHERE id = 10 OR id >= 5000) s "
            + "ON t.id = s.id WHEN MATCHED THEN UPDATE SET t.tenant_id = s.tenant_id WHEN NOT MATCHED THEN INSERT *"); // v8
    assertThat(SparkProcedureTest.version(location)).isEqualTo(8);
    assertThat(count("SELECT count(*) FROM " + table)).isEqualTo(2260);
    assertThat(count("SELECT count(*) FROM " + table + " WHERE tenant_id = 55")).isEqualTo(11);
    List<Long> after = vectorSearchIds(table, 42, 5);
    assertThat(after.subList(0, 2)).containsExactlyInAnyOrder(42L, 1500L);
    assertThat(after).noneMatch(id -> id % 10 == 7);
    assertThat(vectorSearchIds(table, 5003, 1))
        .containsExactly(5003L); // merged in, found by flat search
    assertThat(vectorSearchIds(table, 17, 10)).doesNotContain(17L);
    assertThat(count("SELECT count(*) FROM " + table + " VERSION AS OF 3")).isEqualTo(2500);

    Row compacted = spark.sql("CALL lance.system.compact(table => 'shop.done')").first(); // v9
    assertThat(SparkProcedureTest.version(location)).isEqualTo(9);
    assertThat(compacted.toString()).isNotEmpty();
    assertThat(count("SELECT count(*) FROM " + table)).isEqualTo(2260);
    assertThat(vectorSearchIds(table, 42, 5)).containsExactlyInAnyOrderElementsOf(after);
    spark.sql("CALL lance.system.cleanup(table => 'shop.done', retain_versions => 1)");
    assertThatThrownBy(
            () -> spark.sql("SELECT count(*) FROM " + table + " VERSION AS OF 3").collect())
        .hasMessageContaining("Cannot open version 3");
    assertThat(count("SELECT count(*) FROM " + table)).isEqualTo(2260);

    Path dir = Path.of(java.net.URI.create(location));
    assertThat(LanceOracle.longColumn(allocator, dir, "id", null).stream().sorted().toList())
        .isEqualTo(
            spark.sql("SELECT id FROM " + table + " ORDER BY id").collectAsList().stream()
                .map(r -> r.getLong(0))
                .toList());
    assertThat(LanceOracle.longColumn(allocator, dir, "id", "tenant_id = 55")).hasSize(11);
    List<LanceOracle.Hit> lance =
        LanceOracle.nearest(
            allocator,
            dir,
            SparkProcedureTest.vectorOf(42),
            5,
            null,
            null,
            null,
            false,
            null,
            false);
    assertThat(lance.subList(0, 2))
        .extracting(LanceOracle.Hit::id)
        .containsExactlyInAnyOrder(42L, 1500L);
    assertThat(lance).extracting(LanceOracle.Hit::id).noneMatch(id -> id % 10 == 7);
    spark.sql("DROP TABLE " + table);
  }

  @Test
  void sqlOnlyFlowFromCreateToDrop() throws Exception {
    spark.sql(
        "CREATE TABLE lance.shop.items (id BIGINT, tenant_id INT, vector ARRAY<FLOAT>) "
            + "TBLPROPERTIES ('vector.arrow.fixed-size-list.size' = '"
            + DIM
            + "')");
    String location = location("items");
    try (Dataset ds = Dataset.open(location)) {
      assertThat(ds.version()).isEqualTo(1);
      assertThat(ds.fragments()).isEmpty();
      assertThat(ds.schema().getFields())
          .extracting(f -> f.getName())
          .containsExactly("id", "tenant_id", "vector");
      assertThat(ds.schema().findField("vector").getType())
          .isEqualTo(new ArrowType.FixedSizeList(DIM));
    }
    assertThat(LanceOracle.countRows(allocator, Path.of(java.net.URI.create(location)))).isZero();
    assertThat(count("SELECT count(*) FROM lance.shop.items")).isZero();
    spark.sql(
        "CREATE TABLE IF NOT EXISTS lance.shop.items (other STRING)"); // exists: nothing happens
    assertThat(SparkProcedureTest.version(location)).isEqualTo(1);
    assertThatThrownBy(() -> spark.sql("CREATE TABLE lance.shop.items (id BIGINT)"))
        .hasMessageContaining("already exists");

    spark.sql("INSERT INTO lance.shop.items " + SparkProcedureTest.items(0, 2000)); // version 2
    assertThat(count("SELECT count(*) FROM lance.shop.items")).isEqualTo(2000);
    spark.sql(
        "CALL lance.system.create_index(table => 'shop.items', column => 'vector', index_type => 'IVF_PQ', "
            + "num_partitions => 4, num_sub_vectors => 2, seed => 3)"); // version 3
    spark.sql(
        "CALL lance.system.create_scalar_index(table => 'lance.shop.items', column => 'tenant_id')"); // 4
    List<Long> before = searchIds("lance.shop.items", 42, 20);
    assertThat(before.get(0)).isEqualTo(42L);
    assertThat(before).anyMatch(id -> id % 10 == 3);

    Thread.sleep(20); // versions 4 and 5 at distinct instants for TIMESTAMP AS OF
    spark.sql("DELETE FROM lance.shop.items WHERE id = 42 OR tenant_id = 3"); // version 5
    assertThat(SparkProcedureTest.version(location)).isEqualTo(5);
    assertThat(count("SELECT count(*) FROM lance.shop.items")).isEqualTo(1799);
    assertThat(count("SELECT count(*) FROM lance.shop.items WHERE tenant_id = 3 OR id = 42"))
        .isZero();
    List<Long> after = searchIds("lance.shop.items", 42, 20);
    assertThat(after).hasSize(20).doesNotContain(42L).noneMatch(id -> id % 10 == 3);
    // lance-core reads the version after the delete the same way
    Path dir = Path.of(java.net.URI.create(location));
    assertThat(LanceOracle.countRows(allocator, dir)).isEqualTo(1799);
    assertThat(LanceOracle.longColumn(allocator, dir, "id", "tenant_id = 3 OR id = 42")).isEmpty();
    assertThat(LanceOracle.longColumn(allocator, dir, "id", null).stream().sorted().toList())
        .isEqualTo(
            spark.sql("SELECT id FROM lance.shop.items ORDER BY id").collectAsList().stream()
                .map(r -> r.getLong(0))
                .toList());
    // a delete matching nothing commits nothing
    spark.sql("DELETE FROM lance.shop.items WHERE id > 1000000");
    assertThat(SparkProcedureTest.version(location)).isEqualTo(5);

    Map<String, String> described = describe("lance.shop.items");
    assertThat(described.get("Table Properties"))
        .contains("version=5", "rows=1799", "fragments=2", "indexes=vector_idx,tenant_id_idx");

    // time travel: by version and by instant, in SQL and as reader options
    assertThat(count("SELECT count(*) FROM lance.shop.items VERSION AS OF 2")).isEqualTo(2000);
    assertThat(count("SELECT count(*) FROM lance.shop.items VERSION AS OF 1")).isZero();
    List<VersionInfo> versions;
    try (Dataset ds = Dataset.open(location)) {
      versions = ds.versions();
    }
    String atV4 = asOf(versions.get(3).timestamp());
    String atV5 = asOf(versions.get(4).timestamp());
    assertThat(count("SELECT count(*) FROM lance.shop.items TIMESTAMP AS OF '" + atV4 + "'"))
        .isEqualTo(2000);
    assertThat(count("SELECT count(*) FROM lance.shop.items TIMESTAMP AS OF '" + atV5 + "'"))
        .isEqualTo(1799);
    assertThatThrownBy(
            () ->
                spark
                    .sql("SELECT count(*) FROM lance.shop.items TIMESTAMP AS OF '2000-01-01'")
                    .collect())
        .hasMessageContaining("its first version (1) was committed later");
    assertThat(spark.read().format("lance").option("timestampAsOf", atV4).load(location).count())
        .isEqualTo(2000);
    assertThat(spark.read().format("lance").option("versionAsOf", "5").load(location).count())
        .isEqualTo(1799);
    assertThat(spark.read().format("lance").option("version", "2").load(location).count())
        .isEqualTo(2000);
    assertThatThrownBy(
            () ->
                spark.read().format("lance").option("timestamp_as_of", atV4).load(location).count())
        .hasMessageContaining("Cannot use option \"timestamp_as_of\"")
        .hasMessageContaining("Did you mean \"timestampAsOf\"?");

    spark.sql("DROP TABLE lance.shop.items");
    assertThat(root.resolve("shop").resolve("items.lance")).doesNotExist();
    assertThat(spark.sql("SHOW TABLES IN lance.shop").collectAsList())
        .extracting(r -> r.getString(1))
        .doesNotContain("items");
    spark.sql("DROP TABLE IF EXISTS lance.shop.items");
    assertThatThrownBy(() -> spark.sql("DROP TABLE lance.shop.items"))
        .hasMessageContaining("items");
    // the name is free again: a new dataset starts at version 1
    spark.sql("CREATE TABLE lance.shop.items (id BIGINT)");
    assertThat(count("SELECT count(*) FROM lance.shop.items")).isZero();
    spark.sql("DROP TABLE lance.shop.items PURGE");
    assertThat(root.resolve("shop").resolve("items.lance")).doesNotExist();
  }

  @Test
  void saveAsTableCreatesAppendsAndDeleteWithoutWhereEmptiesTheTable() {
    spark
        .range(0, 10, 1, 2)
        .selectExpr("id", "cast(id as string) AS name")
        .write()
        .saveAsTable("lance.shop.saved");
    spark
        .range(10, 15)
        .selectExpr("id", "cast(id as string) AS name")
        .write()
        .mode("append")
        .saveAsTable("lance.shop.saved");
    assertThat(count("SELECT count(*) FROM lance.shop.saved")).isEqualTo(15);
    assertThat(SparkProcedureTest.version(location("saved"))).isEqualTo(2);
    spark.sql("DELETE FROM lance.shop.saved WHERE name LIKE '1%'"); // 1, 10..14
    assertThat(spark.sql("SELECT id FROM lance.shop.saved ORDER BY id").collectAsList())
        .extracting(r -> r.getLong(0))
        .containsExactly(0L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
    spark.sql("DELETE FROM lance.shop.saved");
    assertThat(count("SELECT count(*) FROM lance.shop.saved")).isZero();
    try (Dataset ds = Dataset.open(location("saved"))) {
      assertThat(ds.fragments()).isEmpty(); // wholly deleted fragments are dropped
    }
    spark.sql("DROP TABLE lance.shop.saved");
  }

  @Test
  void refusalsSayWhyAndWhatToDo() throws Exception {
    spark.sql(
        "CREATE TABLE lance.shop.r (id BIGINT, name STRING, vector ARRAY<FLOAT>) "
            + "TBLPROPERTIES ('vector.arrow.fixed-size-list.size' = '2')");
    // INSERT matches columns by position and casts as SQL does
    spark.sql("INSERT INTO lance.shop.r VALUES (1, 'a', array(1.0, 2.0)), (2, 'b', array(3, 4))");
    assertThat(spark.sql("SELECT id, name, vector FROM lance.shop.r ORDER BY id").collectAsList())
        .extracting(r -> r.getLong(0) + " " + r.getString(1) + " " + r.getList(2))
        .containsExactly("1 a [1.0, 2.0]", "2 b [3.0, 4.0]");
    assertThatThrownBy(() -> spark.sql("INSERT INTO lance.shop.r VALUES (3, 'c')"))
        .hasMessageContaining("INSERT_COLUMN_ARITY_MISMATCH");
    String location = location("r");
    spark.sql("INSERT INTO lance.shop.r (vector, id, name) VALUES (array(5, 6), 3, 'c')");
    assertThat(count("SELECT count(*) FROM lance.shop.r WHERE id = 3 AND name = 'c'")).isEqualTo(1);
    spark.sql(
        "INSERT OVERWRITE lance.shop.r SELECT id, name, vector FROM lance.shop.r WHERE id <= 2");
    assertThat(count("SELECT count(*) FROM lance.shop.r")).isEqualTo(2);
    // conditions the engine cannot evaluate go through Spark's row-level plan (SparkRowLevelTest)
    spark.sql("DELETE FROM lance.shop.r WHERE vector[0] > 5"); // matches nothing: no version
    assertThat(SparkProcedureTest.version(location)).isEqualTo(4);
    spark.sql("DELETE FROM lance.shop.r WHERE id % 2 = 0");
    assertThat(SparkProcedureTest.version(location)).isEqualTo(5);
    assertThat(count("SELECT count(*) FROM lance.shop.r")).isEqualTo(1);

    assertThatThrownBy(() -> spark.sql("CREATE TABLE lance.shop.p (id BIGINT) USING parquet"))
        .hasMessageContaining("USING parquet")
        .hasMessageContaining("Lance datasets only");
    assertThatThrownBy(
            () -> spark.sql("CREATE TABLE lance.shop.p (id BIGINT, d INT) PARTITIONED BY (d)"))
        .hasMessageContaining("not partitioned");
    assertThatThrownBy(() -> spark.sql("CREATE TABLE lance.shop.p (id BIGINT) LOCATION '/tmp/x'"))
        .hasMessageContaining("LOCATION");
    assertThat(root.resolve("shop").resolve("p.lance")).doesNotExist();
    assertThatThrownBy(
            () -> spark.sql("ALTER TABLE lance.shop.r ALTER COLUMN id COMMENT 'the key'"))
        .hasMessageContaining(
            "Cannot alter lance.shop.r: UpdateColumnComment of column id is not supported by Lance "
                + "tables");
    assertThatThrownBy(() -> spark.sql("DROP TABLE lance.`" + location + "`"))
        .hasMessageContaining("not a dataset named by its path");
    assertThat(Dataset.exists(location, null)).isTrue();
    assertThatThrownBy(
            () -> spark.read().format("lance").option("batchsize", "10").load(location).count())
        .hasMessageContaining("Did you mean \"batch_size\"?");
    assertThatThrownBy(
            () ->
                spark
                    .range(1)
                    .write()
                    .format("lance")
                    .option("max_rows_per_fil", "10")
                    .mode("append")
                    .save(location))
        .hasMessageContaining("Did you mean \"max_rows_per_file\"?");
    spark.sql("DROP TABLE lance.shop.r");
  }
}
