package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.spark.index.LanceIndexBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link LanceCatalog} and its procedures: tables laid out as {@code <root>/<ns>/<name>.lance}
 * (CTAS with a vector column from TBLPROPERTIES, SHOW TABLES, namespaces, time travel), index
 * builds by {@code CALL} with a table name or a path, each procedure's result row, the built index
 * equal to the Java API's, nothing run by {@code EXPLAIN CALL}, and clear refusals of bad input and
 * of DDL not supported yet (the SQL table statements are {@link SparkSqlTablesTest}'s).
 */
class SparkProcedureTest extends SharedSpark {
  static final int DIM = 8;
  static Path root;

  @BeforeAll
  static void rootTheCatalog() throws Exception {
    root = Files.createTempDirectory("lance-catalog");
    spark.conf().set("spark.sql.catalog.lance.root", root.toString());
  }

  /**
   * {@code SELECT} of 2,000 rows in two partitions: id, tenant_id = id % 10, an 8-dim array<float>.
   */
  static String items(long from, long to) {
    return "SELECT id, cast(id % 10 as int) AS tenant_id, transform(sequence(1, "
        + DIM
        + "), i -> cast(sin(id * i) "
        + "as float)) AS vector FROM range("
        + from
        + ", "
        + to
        + ", 1, 2)";
  }

  static float[] vectorOf(long id) {
    float[] v = new float[DIM];
    for (int i = 0; i < DIM; i++) {
      v[i] = (float) Math.sin((double) id * (i + 1)) + 0.01f;
    }
    return v;
  }

  static long version(String location) {
    try (Dataset ds = Dataset.open(location)) {
      return ds.version();
    }
  }

  /** A dataset of 2,000 rows at a fresh path, written by the data source (no catalog). */
  static String datasetAtPath(String prefix) throws Exception {
    String path = Files.createTempDirectory(prefix).resolve("items").toString();
    spark
        .sql(items(0, 2000))
        .write()
        .format("lance")
        .option("vector.columns", "vector:" + DIM)
        .save(path);
    return path;
  }

  static String search(String target) {
    return "SELECT id, _distance FROM lance_vector_search('"
        + target
        + "', column => 'vector', q => array("
        + SparkVectorSearchTest.toSql(vectorOf(42))
        + "), k => 5, nprobes => 2)";
  }

  @Test
  void ctasWithAVectorPropertyThenCallCreateIndexThenSearchByTableName() throws Exception {
    spark.sql(
        "CREATE TABLE lance.db.items TBLPROPERTIES ('vector.arrow.fixed-size-list.size' = '"
            + DIM
            + "') AS "
            + items(0, 2000));
    String location = root.resolve("db").resolve("items.lance").toUri().toString();
    try (Dataset ds = Dataset.open(location)) {
      assertThat(ds.version()).isEqualTo(1);
      assertThat(ds.schema().findField("vector").getType())
          .isEqualTo(new ArrowType.FixedSizeList(DIM));
    }
    assertThat(spark.sql("SHOW TABLES IN lance.db").collectAsList())
        .extracting(r -> r.getString(1))
        .containsExactly("items");
    assertThat(
            spark.sql("SELECT count(*) FROM lance.db.items WHERE tenant_id = 3").first().getLong(0))
        .isEqualTo(200);

    Row created =
        spark
            .sql(
                "CALL lance.system.create_index(table => 'db.items', column => 'vector', "
                    + "index_type => 'IVF_PQ', metric => 'l2', num_partitions => 4, num_sub_vectors => 2, seed => 3)")
            .first();
    assertThat(created.schema().fieldNames())
        .containsExactly(
            "name",
            "index_type",
            "metric",
            "version",
            "segments",
            "indexed_fragments",
            "indexed_rows",
            "unindexed_rows");
    assertThat(created)
        .isEqualTo(
            Row.fromSeq(
                scala.jdk.javaapi.CollectionConverters.asScala(
                        List.<Object>of("vector_idx", "IVF_PQ", "l2", 2L, 1, 2, 2000L, 0L))
                    .toSeq()));
    // time travel through the catalog: version 1 has no index, the same rows
    assertThat(spark.sql("SELECT count(*) FROM lance.db.items VERSION AS OF 1").first().getLong(0))
        .isEqualTo(2000);

    // the index is the one the Java API builds on the same data with the same spec
    String path = datasetAtPath("procedure-java-api");
    LanceIndexBuilder.createIndex(
        spark,
        path,
        "vector",
        VectorIndexSpec.of(IndexType.IVF_PQ, DistanceMetric.L2)
            .withNumPartitions(4)
            .withNumSubVectors(2)
            .withSeed(3));
    List<Row> byName = spark.sql(search("lance.db.items")).collectAsList();
    assertThat(byName).hasSize(5).isEqualTo(spark.sql(search(path)).collectAsList());
    assertThat(byName.get(0).getLong(0)).isEqualTo(42L);
    // a qualified name of the catalog is the same table for the procedures
    Row again =
        spark
            .sql(
                "CALL lance.system.create_index(table => 'lance.db.items', column => 'vector', "
                    + "index_type => 'IVF_FLAT', num_partitions => 2, name => 'flat_idx')")
            .first();
    assertThat(again.getLong(again.fieldIndex("version"))).isEqualTo(3);
    assertThat(version(location)).isEqualTo(3);
  }

  @Test
  void callByPathRunsEveryProcedure() throws Exception {
    String path = datasetAtPath("procedure-path");
    String uri = LancePathCatalog.qualify(path);
    Row vector =
        spark
            .sql(
                "CALL lance.system.create_index(table => '"
                    + path
                    + "', column => 'vector', "
                    + "index_type => 'IVF_HNSW_SQ', num_partitions => 2, m => 8, ef_construction => 40, seed => 1)")
            .first();
    assertThat(vector.getLong(vector.fieldIndex("version"))).isEqualTo(2);
    assertThat(vector.getString(vector.fieldIndex("index_type"))).isEqualTo("IVF_HNSW_SQ");

    Row scalar =
        spark
            .sql(
                "CALL lance.system.create_scalar_index(table => '"
                    + uri
                    + "', column => 'tenant_id')")
            .first();
    assertThat(scalar.schema().fieldNames())
        .containsExactly(
            "name",
            "index_type",
            "column",
            "version",
            "indexed_rows",
            "null_rows",
            "unindexed_rows");
    assertThat(scalar)
        .isEqualTo(
            Row.fromSeq(
                scala.jdk.javaapi.CollectionConverters.asScala(
                        List.<Object>of("tenant_id_idx", "BTREE", "tenant_id", 3L, 2000L, 0L, 0L))
                    .toSeq()));
    // the BTree answers a prefilter: every row of tenant 2 among the nearest
    List<Row> tenant2 =
        spark
            .sql(
                "SELECT id FROM lance_vector_search('"
                    + path
                    + "', column => 'vector', q => array("
                    + SparkVectorSearchTest.toSql(vectorOf(42))
                    + "), k => 3, nprobes => 2, refine_factor => 10, filter => 'tenant_id = 2', prefilter => true)")
            .collectAsList();
    assertThat(tenant2).hasSize(3).allMatch(r -> r.getLong(0) % 10 == 2);
    assertThat(tenant2.get(0).getLong(0)).isEqualTo(42L);

    spark.sql(items(2000, 2500)).write().format("lance").mode("append").save(path);
    Row optimized =
        spark
            .sql("CALL lance.system.optimize_index(table => '" + path + "', name => 'vector_idx')")
            .first();
    assertThat(optimized)
        .isEqualTo(
            Row.fromSeq(
                scala.jdk.javaapi.CollectionConverters.asScala(
                        List.<Object>of("vector_idx", "IVF_HNSW_SQ", "l2", 5L, 2, 4, 2500L, 0L))
                    .toSeq()));
    Row retrained =
        spark.sql("CALL lance.system.optimize_index('" + path + "', 'vector_idx', true)").first();
    assertThat(retrained.getLong(retrained.fieldIndex("version"))).isEqualTo(6);
    assertThat(retrained.getInt(retrained.fieldIndex("segments"))).isEqualTo(1);
  }

  @Test
  void explainAndDescribeDoNotRunAProcedure() throws Exception {
    String path = datasetAtPath("procedure-explain");
    String call =
        "CALL lance.system.create_index(table => '"
            + path
            + "', column => 'vector', index_type => "
            + "'IVF_FLAT', num_partitions => 2)";
    String plan = spark.sql("EXPLAIN " + call).first().getString(0);
    assertThat(plan).contains("lance.system.create_index");
    spark.sql("EXPLAIN EXTENDED " + call).collectAsList();
    spark.sql("EXPLAIN FORMATTED " + call).collectAsList();
    assertThat(version(path)).isEqualTo(1);
    // a CALL is a statement: it cannot be part of a query or a view
    assertThatThrownBy(() -> spark.sql("CREATE TEMPORARY VIEW built AS " + call)).isNotNull();
    assertThatThrownBy(() -> spark.sql("SELECT * FROM (" + call + ")")).isNotNull();
    assertThat(version(path)).isEqualTo(1);

    assertThat(spark.sql("SHOW PROCEDURES IN lance.system").collectAsList())
        .extracting(r -> r.getString(3))
        .containsExactly(
            "add_columns",
            "cleanup",
            "compact",
            "create_branch",
            "create_index",
            "create_scalar_index",
            "create_tag",
            "delete_branch",
            "delete_tag",
            "drop_index",
            "list_branches",
            "list_indexes",
            "list_tags",
            "optimize_index",
            "recall",
            "restore",
            "update_tag");
    String described =
        String.join(
            "\n",
            spark.sql("DESCRIBE PROCEDURE lance.system.create_index").collectAsList().stream()
                .map(r -> r.getString(0))
                .toList());
    assertThat(described)
        .contains(
            "Usage: CALL lance.system.create_index(table => <string>, column => <string>, "
                + "index_type => <string> [, metric => <string>, num_partitions => <bigint>");
    assertThat(version(path)).isEqualTo(1);
  }

  @Test
  void callListsAndDropsIndexesByPathOrPathName() throws Exception {
    String path = datasetAtPath("procedure-indexes"); // version 1: 2,000 rows in 2 fragments
    String named = "lance.`" + LancePathCatalog.qualify(path) + "`";
    spark.sql(
        "CALL lance.system.create_index(table => '"
            + named
            + "', column => 'vector', index_type => 'IVF_FLAT', num_partitions => 2)"); // 2
    spark.sql(
        "CALL lance.system.create_scalar_index(table => '" + path + "', column => 'tenant_id')");
    spark.sql(items(2000, 2300)).write().format("lance").mode("append").save(path); // 4
    spark.sql("DELETE FROM " + named + " WHERE id % 100 = 0"); // 5: 20 indexed rows, 3 appended

    List<Row> listed =
        spark.sql("CALL lance.system.list_indexes(table => '" + named + "')").collectAsList();
    assertThat(listed.get(0).schema().fieldNames())
        .containsExactly(
            "name",
            "index_type",
            "columns",
            "metric",
            "segments",
            "indexed_fragments",
            "indexed_rows",
            "unindexed_fragments",
            "unindexed_rows",
            "size_bytes");
    assertThat(listed)
        .extracting(
            r -> r.getString(0) + " " + r.getString(1) + " " + r.getList(2) + " " + r.get(3))
        .containsExactlyInAnyOrder(
            "vector_idx IVF_FLAT [vector] l2", "tenant_id_idx BTREE [tenant_id] null");
    for (Row r : listed) {
      assertThat(r.getInt(4)).isEqualTo(1);
      assertThat(r.getLong(5)).isEqualTo(2);
      assertThat(r.getLong(6)).isEqualTo(2000 - 20);
      assertThat(r.getLong(7)).isEqualTo(2); // the append wrote two fragments
      assertThat(r.getLong(8)).isEqualTo(300 - 3);
      assertThat(r.getLong(9)).isPositive();
    }

    // the table function takes the same name forms
    List<Row> indexed = spark.sql(search(named)).collectAsList();
    assertThat(indexed).hasSize(5).isEqualTo(spark.sql(search(path)).collectAsList());

    Row dropped =
        spark
            .sql("CALL lance.system.drop_index(table => '" + path + "', name => 'vector_idx')")
            .first();
    assertThat(dropped.getLong(0)).isEqualTo(6);
    assertThat(dropped.getString(1)).isEqualTo("vector_idx");
    assertThat(dropped.getInt(2)).isEqualTo(1);
    assertThat(spark.sql("CALL lance.system.list_indexes(table => '" + path + "')").collectAsList())
        .extracting(r -> r.getString(0))
        .containsExactly("tenant_id_idx");
    // a search of the column now scans flat: an IVF_FLAT index is exact, so the same rows
    assertThat(spark.sql(search(named)).collectAsList())
        .extracting(r -> r.getLong(0))
        .isEqualTo(indexed.stream().map(r -> r.getLong(0)).toList());

    assertThatThrownBy(
            () ->
                spark.sql(
                    "CALL lance.system.drop_index(table => '" + path + "', name => 'tenant_idx')"))
        .hasMessageStartingWith("Cannot run lance.system.drop_index: ")
        .hasMessageContaining("has no index of that name")
        .hasMessageContaining("did you mean \"tenant_id_idx\"");
    assertThat(version(path)).isEqualTo(6);
  }

  @Test
  void callRestoreByVersionAndByTimestamp() throws Exception {
    String path = datasetAtPath("procedure-restore"); // version 1: 2,000 rows
    spark.sql(items(2000, 2500)).write().format("lance").mode("append").save(path); // 2
    String count = "SELECT count(*) FROM lance.`" + LancePathCatalog.qualify(path) + "`";
    assertThat(spark.sql(count).first().getLong(0)).isEqualTo(2500);

    Row byVersion =
        spark.sql("CALL lance.system.restore(table => '" + path + "', version => 1)").first();
    assertThat(byVersion.schema().fieldNames()).containsExactly("version", "restored_version");
    assertThat(byVersion.getLong(0)).isEqualTo(3);
    assertThat(byVersion.getLong(1)).isEqualTo(1);
    assertThat(spark.sql(count).first().getLong(0)).isEqualTo(2000);

    // one microsecond after version 2 was committed (Spark's timestamps have microseconds)
    java.time.Instant t2;
    try (Dataset ds = Dataset.open(path)) {
      t2 = ds.versions().get(1).timestamp();
    }
    java.time.Instant at = t2.truncatedTo(java.time.temporal.ChronoUnit.MICROS).plusNanos(1000);
    Row byTime =
        spark
            .sql(
                "CALL lance.system.restore(table => '"
                    + path
                    + "', timestamp => TIMESTAMP '"
                    + java.time.format.DateTimeFormatter.ISO_INSTANT.format(at)
                    + "')")
            .first();
    assertThat(byTime.getLong(0)).isEqualTo(4);
    assertThat(byTime.getLong(1)).isEqualTo(2);
    assertThat(spark.sql(count).first().getLong(0)).isEqualTo(2500);
    try (Dataset ds = Dataset.open(path)) {
      assertThat(ds.versions().get(3).operation()).isEqualTo("restore");
    }

    // by a table name of the catalog; the table reads the restored version at once
    spark.sql("CREATE TABLE lance.db.restored AS " + items(0, 100));
    spark.sql("INSERT INTO lance.db.restored " + items(100, 150));
    assertThat(spark.sql("SELECT count(*) FROM lance.db.restored").first().getLong(0))
        .isEqualTo(150);
    Row byName =
        spark.sql("CALL lance.system.restore(table => 'lance.db.restored', version => 1)").first();
    assertThat(byName.getLong(0)).isEqualTo(3);
    assertThat(spark.sql("SELECT count(*) FROM lance.db.restored").first().getLong(0))
        .isEqualTo(100);
    assertThat(
            spark.sql("SELECT count(*) FROM lance.db.restored VERSION AS OF 2").first().getLong(0))
        .isEqualTo(150);

    String usage =
        "Usage: CALL lance.system.restore(table => <string> [, version => <bigint>, "
            + "timestamp => <timestamp>])";
    assertThatThrownBy(
            () ->
                spark.sql(
                    "CALL lance.system.restore(table => '"
                        + path
                        + "', version => 1, timestamp => TIMESTAMP '2026-01-01 00:00:00')"))
        .hasMessageContaining(
            "Cannot run lance.system.restore: give exactly one of version (a version number) and "
                + "timestamp (a TIMESTAMP), got both.")
        .hasMessageContaining(usage);
    assertThatThrownBy(() -> spark.sql("CALL lance.system.restore(table => '" + path + "')"))
        .hasMessageContaining("got neither.");
    assertThatThrownBy(
            () -> spark.sql("CALL lance.system.restore(table => '" + path + "', version => 9)"))
        .hasMessageContaining("Cannot restore version 9")
        .hasMessageContaining("Available versions: 1 to 4.");
    assertThatThrownBy(
            () ->
                spark.sql(
                    "CALL lance.system.restore(table => '"
                        + path
                        + "', timestamp => TIMESTAMP '2001-01-01 00:00:00')"))
        .hasMessageContaining("no version was committed at or before that time");
    assertThatThrownBy(
            () ->
                spark.sql(
                    "CALL lance.system.restore(table => '" + path + "', timestamp => '2026')"))
        .hasMessageContaining("parameter timestamp takes a TIMESTAMP, got a STRING");
    assertThat(version(path)).isEqualTo(4);
    String described =
        String.join(
            "\n",
            spark.sql("DESCRIBE PROCEDURE lance.system.restore").collectAsList().stream()
                .map(r -> r.getString(0))
                .toList());
    assertThat(described).contains(usage);
  }

  @Test
  void badInputIsRefusedNamingTheProcedureAndItsUsage() throws Exception {
    String path = datasetAtPath("procedure-bad");
    String create = "CALL lance.system.create_index(table => '" + path + "', ";
    String usage =
        "Usage: CALL lance.system.create_index(table => <string>, column => <string>, index_type => "
            + "<string> [, metric => <string>, num_partitions => <bigint>";
    assertThatThrownBy(
            () ->
                spark.sql(create + "column => 'vector', index_type => 'IVF_PQ', partitions => 4)"))
        .hasMessageStartingWith(
            "Cannot run lance.system.create_index: unknown parameter \"partitions\". ")
        .hasMessageContaining(usage);
    assertThatThrownBy(() -> spark.sql(create + "index_type => 'IVF_PQ')"))
        .hasMessageContaining("Cannot run lance.system.create_index: parameter column is required.")
        .hasMessageContaining(usage);
    assertThatThrownBy(
            () ->
                spark.sql(
                    create
                        + "column => 'vector', index_type => 'IVF_PQ', num_partitions => "
                        + "'many')"))
        .hasMessageContaining("parameter num_partitions takes a BIGINT, got a STRING")
        .hasMessageContaining(usage);
    assertThatThrownBy(
            () -> spark.sql(create + "column => 'vector', index_type => 'IVF_PQ', replace => 1)"))
        .hasMessageContaining("parameter replace takes a BOOLEAN, got a INT");
    assertThatThrownBy(() -> spark.sql(create + "column => 'tenant_id', index_type => 'IVF_PQ')"))
        .hasMessageStartingWith("Cannot run lance.system.create_index: ")
        .hasMessageContaining("tenant_id")
        .hasMessageContaining(usage);
    assertThatThrownBy(() -> spark.sql(create + "column => 'vector', index_type => 'IVF_BOGUS')"))
        .hasMessageStartingWith("Cannot run lance.system.create_index: ")
        .hasMessageContaining("IVF_BOGUS");
    assertThatThrownBy(
            () ->
                spark.sql(
                    "CALL lance.system.create_index(table => 'db.missing', column => 'vector', "
                        + "index_type => 'IVF_PQ')"))
        .hasMessageContaining("table \"db.missing\" does not exist")
        .hasMessageContaining(
            root.resolve("db").resolve("missing.lance").toUri().getPath().replaceAll("/$", ""));
    assertThatThrownBy(
            () ->
                spark.sql(
                    "CALL lance.system.optimize_index(table => '"
                        + path
                        + "', name => "
                        + "'missing_idx')"))
        .hasMessageStartingWith("Cannot run lance.system.optimize_index: ")
        .hasMessageContaining("missing_idx");
    assertThatThrownBy(
            () ->
                spark.sql(
                    "CALL lance.system.create_scalar_index(table => '"
                        + path
                        + "', column => "
                        + "'tenant_id', index_type => 'IVF_PQ')"))
        .hasMessageContaining("lancelot builds BTREE, BITMAP, ZONEMAP, BLOOM_FILTER")
        .hasMessageContaining("lance.system.create_index");
    assertThatThrownBy(
            () ->
                spark.sql(
                    "CALL lance.system.create_scalar_index(table => '"
                        + path
                        + "', column => "
                        + "'vector')"))
        .hasMessageStartingWith("Cannot run lance.system.create_scalar_index: ")
        .hasMessageContaining("vector");
    assertThatThrownBy(() -> spark.sql("CALL lance.system.vacuum(table => '" + path + "')"))
        .hasStackTraceContaining(
            "the procedures of catalog lance are lance.system.{add_columns, cleanup, compact, create_branch, create_index, create_scalar_index, create_tag, delete_branch, delete_tag, drop_index, list_branches, list_indexes, list_tags, optimize_index, recall, restore, update_tag}");
    assertThat(version(path)).isEqualTo(1);
  }

  @Test
  void namespacesAreDirectoriesAndUnsupportedDdlSaysSo() throws Exception {
    spark.sql("CREATE NAMESPACE lance.ns2");
    assertThat(root.resolve("ns2")).isDirectory();
    spark.sql("CREATE TABLE lance.ns2.t AS SELECT 1 AS id");
    assertThat(spark.sql("SHOW NAMESPACES IN lance").collectAsList())
        .extracting(r -> r.getString(0))
        .contains("ns2");
    assertThat(spark.sql("SHOW TABLES IN lance.ns2").collectAsList())
        .extracting(r -> r.getString(1))
        .containsExactly("t");
    assertThatThrownBy(() -> spark.sql("CREATE TABLE lance.ns2.t AS SELECT 2 AS id"))
        .hasMessageContaining("already exists");
    assertThatThrownBy(() -> spark.sql("SELECT * FROM lance.ns2.nothing"))
        .hasMessageContaining("nothing");
    assertThatThrownBy(() -> spark.sql("ALTER TABLE lance.ns2.t ALTER COLUMN id TYPE BIGINT"))
        .hasMessageContaining(
            "Cannot alter lance.ns2.t: UpdateColumnType of column id: Lance changes a column's type "
                + "only by rewriting it");
    assertThatThrownBy(
            () -> spark.sql("CREATE TABLE lance.ns2.elsewhere LOCATION '/tmp/x' AS SELECT 1 AS id"))
        .hasMessageContaining("LOCATION");
    // INSERT INTO appends, one version
    spark.sql("INSERT INTO lance.ns2.t SELECT 2 AS id");
    assertThat(spark.sql("SELECT id FROM lance.ns2.t ORDER BY id").collectAsList())
        .extracting(r -> r.getInt(0))
        .containsExactly(1, 2);
    // a one-part name that is a path is that location
    String path = datasetAtPath("procedure-catalog-path");
    assertThat(spark.sql("SELECT count(*) FROM lance.`" + path + "`").first().getLong(0))
        .isEqualTo(2000);
  }

  @Test
  void metadataTablesShowVersionsFragmentsFilesIndexesTagsAndBranches() throws Exception {
    spark.sql("CREATE TABLE lance.meta.items AS " + items(0, 2000)); // 1: two fragments
    spark.sql("INSERT INTO lance.meta.items " + items(2000, 2100)); // 2: two more
    spark.sql("DELETE FROM lance.meta.items WHERE id < 10"); // 3
    spark.sql("CALL lance.system.create_scalar_index(table => 'meta.items', column => 'id')"); // 4
    spark.sql("CALL lance.system.create_tag(table => 'meta.items', tag => 'first', version => 1)");

    List<Row> versions =
        spark
            .sql("SELECT version, operation, rows, fragments, tags FROM lance.meta.items.versions")
            .collectAsList();
    assertThat(versions)
        .extracting(r -> r.getLong(0) + " " + r.getLong(2) + " " + r.getInt(3) + " " + r.getList(4))
        .containsExactly("1 2000 2 [first]", "2 2100 4 []", "3 2090 4 []", "4 2090 4 []");
    assertThat(versions.get(2).getString(1)).isEqualTo("delete");
    assertThat(spark.sql("SELECT timestamp FROM lance.meta.items.versions").first().get(0))
        .isInstanceOf(java.sql.Timestamp.class);

    List<Row> fragments =
        spark
            .sql(
                "SELECT fragment_id, physical_rows, deleted_rows, rows, size(data_files) "
                    + "FROM lance.meta.items.fragments ORDER BY fragment_id")
            .collectAsList();
    assertThat(fragments).hasSize(4);
    assertThat(fragments.stream().mapToLong(r -> r.getLong(3)).sum()).isEqualTo(2090);
    assertThat(fragments.stream().mapToLong(r -> r.getLong(2)).sum()).isEqualTo(10);
    assertThat(fragments).allMatch(r -> r.getInt(4) == 1);
    // time travel: version 1 had two fragments and no index
    assertThat(
            spark
                .sql("SELECT count(*) FROM lance.meta.items.fragments VERSION AS OF 1")
                .first()
                .getLong(0))
        .isEqualTo(2);
    assertThat(spark.sql("SELECT * FROM lance.meta.items.indexes VERSION AS OF 3").count())
        .isZero();

    List<Row> files =
        spark.sql("SELECT fragment_id, path, location FROM lance.meta.items.files").collectAsList();
    assertThat(files).hasSize(4);
    for (Row f : files) {
      assertThat(f.getString(1)).endsWith(".lance");
      assertThat(f.getString(2)).endsWith("/data/" + f.getString(1));
      assertThat(java.nio.file.Path.of(java.net.URI.create(f.getString(2)))).isRegularFile();
    }

    Row index = spark.sql("SELECT * FROM lance.meta.items.indexes").first();
    assertThat(index.getString(0)).isEqualTo("id_idx");
    assertThat(index.getString(1)).isEqualTo("BTREE");
    assertThat(index.getLong(6)).isEqualTo(2090);

    assertThat(spark.sql("SELECT tag, version FROM lance.meta.items.tags").collectAsList())
        .extracting(r -> r.getString(0) + "@" + r.getLong(1))
        .containsExactly("first@1");
    assertThat(spark.sql("SELECT * FROM lance.meta.items.branches").count()).isZero();

    // a table named by its path has them too; the same rows
    String location;
    try (Dataset ds = Dataset.open(root.resolve("meta").resolve("items.lance").toString())) {
      location = ds.location();
    }
    assertThat(
            spark
                .sql("SELECT version FROM lance.`" + location + "`.versions")
                .collectAsList()
                .size())
        .isEqualTo(4);

    // the kinds that describe every version refuse time travel; unknown names are not tables
    assertThatThrownBy(() -> spark.sql("SELECT * FROM lance.meta.items.versions VERSION AS OF 1"))
        .hasStackTraceContaining("it describes every version of the table");
    assertThatThrownBy(() -> spark.sql("SELECT * FROM lance.meta.items.snapshots"))
        .hasMessageContaining("snapshots");
  }

  @Test
  void distanceFunctionsAreTheDistancesSearchesReport() throws Exception {
    String path = datasetAtPath("procedure-functions");
    String q = "array(" + SparkVectorSearchTest.toSql(vectorOf(42)) + ")";
    List<Row> byFunction =
        spark
            .sql(
                "SELECT id, lance.system.l2_distance(vector, "
                    + q
                    + ") AS d FROM lance.`"
                    + path
                    + "` ORDER BY d LIMIT 5")
            .collectAsList();
    // no index: the search is exact, so the same rows and the same distances
    List<Row> searched = spark.sql(search(path)).collectAsList();
    assertThat(byFunction)
        .extracting(r -> r.getLong(0))
        .isEqualTo(searched.stream().map(r -> r.getLong(0)).toList());
    for (int i = 0; i < 5; i++) {
      assertThat(byFunction.get(i).getFloat(1)).isEqualTo(searched.get(i).getFloat(1));
    }
    Row row =
        spark
            .sql(
                "SELECT vector, lance.system.cosine_distance(vector, "
                    + q
                    + "), lance.system.dot_distance(vector, "
                    + q
                    + "), lance.system.l2_distance(vector, vector) FROM lance.`"
                    + path
                    + "` WHERE id = 7")
            .first();
    float[] v = new float[DIM];
    for (int i = 0; i < DIM; i++) {
      v[i] = ((Number) row.getList(0).get(i)).floatValue();
    }
    assertThat(row.getFloat(1))
        .isEqualTo(dev.lancelot.engine.vector.DistanceMetric.COSINE.distance(v, vectorOf(42)));
    assertThat(row.getFloat(2))
        .isEqualTo(dev.lancelot.engine.vector.DistanceMetric.DOT.distance(v, vectorOf(42)));
    assertThat(row.getFloat(3)).isZero();
    // doubles are taken as floats; NULL vectors or elements give NULL
    assertThat(
            spark
                .sql(
                    "SELECT lance.system.l2_distance(array(1.0D, 2.0D), array(cast(1 as float), "
                        + "cast(4 as float))), lance.system.l2_distance(NULL, array(1.0D)), "
                        + "lance.system.dot_distance(array(1.0D, NULL), array(1.0D, 1.0D))")
                .first()
                .toSeq()
                .toString())
        .isEqualTo("ArraySeq(4.0, null, null)");
    assertThatThrownBy(
            () ->
                spark
                    .sql("SELECT lance.system.l2_distance(array(1.0D), array(1.0D, 2.0D))")
                    .collect())
        .hasStackTraceContaining("the vectors have 1 and 2 elements");
    assertThatThrownBy(() -> spark.sql("SELECT lance.system.l2_distance('a', 'b')"))
        .hasStackTraceContaining("it takes ARRAY<FLOAT> or ARRAY<DOUBLE> vectors");
    assertThat(spark.sql("SHOW FUNCTIONS IN lance.system").collectAsList())
        .extracting(r -> r.getString(0))
        .contains("lance.system.l2_distance", "lance.system.cosine_distance");
  }

  @Test
  void dropNamespaceDropsEmptyOnesAndTheirTablesWithCascade() throws Exception {
    spark.sql("CREATE NAMESPACE lance.gone");
    spark.sql("DROP NAMESPACE lance.gone");
    assertThat(root.resolve("gone")).doesNotExist();
    spark.sql("DROP NAMESPACE IF EXISTS lance.gone");
    assertThatThrownBy(() -> spark.sql("DROP NAMESPACE lance.gone")).hasMessageContaining("gone");

    spark.sql("CREATE NAMESPACE lance.full");
    spark.sql("CREATE TABLE lance.full.a AS SELECT 1 AS id");
    spark.sql("CREATE NAMESPACE lance.full.inner");
    spark.sql("CREATE TABLE lance.full.inner.b AS SELECT 2 AS id");
    assertThatThrownBy(() -> spark.sql("DROP NAMESPACE lance.full"))
        .hasStackTraceContaining(
            "Cannot drop namespace lance.full: it is not empty (tables [full.a, full.inner.b]). "
                + "Drop its tables first, or use DROP NAMESPACE lance.full CASCADE");
    assertThat(spark.sql("SELECT id FROM lance.full.inner.b").first().getInt(0)).isEqualTo(2);

    // a file that is neither a table nor a namespace is never deleted
    Path stray = root.resolve("full").resolve("inner").resolve("notes.txt");
    Files.writeString(stray, "keep me");
    assertThatThrownBy(() -> spark.sql("DROP NAMESPACE lance.full CASCADE"))
        .hasStackTraceContaining("holds entries that are neither tables nor namespaces")
        .hasStackTraceContaining("notes.txt")
        .hasStackTraceContaining("nothing was dropped");
    assertThat(spark.sql("SELECT id FROM lance.full.a").first().getInt(0)).isEqualTo(1);
    Files.delete(stray);

    spark.sql("DROP NAMESPACE lance.full CASCADE");
    assertThat(root.resolve("full")).doesNotExist();
    assertThat(spark.sql("SHOW NAMESPACES IN lance").collectAsList())
        .extracting(r -> r.getString(0))
        .doesNotContain("full");
    // the procedures' namespace is no directory: Spark finds no such namespace to drop
    assertThatThrownBy(() -> spark.sql("DROP NAMESPACE lance.system"))
        .hasMessageContaining("`system`");
  }
}
