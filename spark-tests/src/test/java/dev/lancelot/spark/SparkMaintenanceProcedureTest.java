package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Dataset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.lance.ReadOptions;

/**
 * {@code CALL lance.system.compact} and {@code CALL lance.system.cleanup} (D23): their result rows,
 * searches and scans unchanged by a compaction, lance-core 7.0.0 reading what is left after
 * cleanup, a removed version refused by name, nothing run by {@code EXPLAIN}, clear refusals.
 */
class SparkMaintenanceProcedureTest extends SharedSpark {
  static Path root;

  @BeforeAll
  static void rootTheCatalog() throws Exception {
    root = Files.createTempDirectory("lance-maintenance");
    spark.conf().set("spark.sql.catalog.lance.root", root.toString());
  }

  /** Eight fragments of 250 rows (four writes of two tasks each), deletions in the first two. */
  static String fragmentedDataset(String prefix) throws Exception {
    String path = Files.createTempDirectory(prefix).resolve("items").toString();
    for (int i = 0; i < 4; i++) {
      spark
          .sql(SparkProcedureTest.items(i * 500L, (i + 1) * 500L))
          .write()
          .format("lance")
          .option("vector.columns", "vector:" + SparkProcedureTest.DIM)
          .mode(i == 0 ? "errorifexists" : "append")
          .save(path);
    }
    return path;
  }

  static List<Row> rows(String path) {
    return spark.read().format("lance").load(path).orderBy("id").collectAsList();
  }

  static List<Row> search(String path, String extra) {
    return spark
        .sql(
            "SELECT id, _distance FROM lance_vector_search('"
                + path
                + "', column => 'vector', q => array("
                + SparkVectorSearchTest.toSql(SparkProcedureTest.vectorOf(42))
                + "), k => 10, nprobes => 2"
                + extra
                + ")")
        .collectAsList();
  }

  static long files(String path, String dir) throws Exception {
    Path d = Path.of(path).resolve(dir);
    try (Stream<Path> s = Files.list(d)) {
      return s.count();
    }
  }

  @Test
  void compactKeepsRowsAndSearchesThenCleanupRemovesWhatOnlyOldVersionsUsed() throws Exception {
    String path = fragmentedDataset("maintenance-compact");
    spark.sql(
        "CALL lance.system.create_index(table => '"
            + path
            + "', column => 'vector', index_type => 'IVF_PQ', "
            + "num_partitions => 2, num_sub_vectors => 2)");
    spark.sql(
        "CALL lance.system.create_scalar_index(table => '" + path + "', column => 'tenant_id')");
    try (Dataset ds = Dataset.open(path);
        Dataset deleted = ds.delete("id < 100 OR (id >= 250 AND id < 300)")) {
      assertThat(deleted.version()).isEqualTo(7);
      assertThat(deleted.fragments()).hasSize(8);
    }
    List<Row> rowsBefore = rows(path);
    List<Row> searchBefore = search(path, "");
    List<Row> prefilteredBefore = search(path, ", filter => 'tenant_id = 2', prefilter => true");

    Row compacted =
        spark
            .sql(
                "CALL lance.system.compact(table => '"
                    + path
                    + "', target_rows_per_fragment => 1000)")
            .first();
    assertThat(compacted.schema().fieldNames())
        .containsExactly(
            "version",
            "committed",
            "fragments_removed",
            "fragments_added",
            "files_removed",
            "files_added",
            "rows_rewritten",
            "index_segments_remapped");
    // All eight fragments are small (250 < 1000) and covered by the same two index segments: one
    // bin.
    // Its first 1,000 live rows leave 750, too few for a group of their own, so it is one group of
    // 1,850 rows, written as fragments of 1,000 and 850 rows.
    assertThat(compacted)
        .isEqualTo(
            Row.fromSeq(
                scala.jdk.javaapi.CollectionConverters.asScala(
                        List.<Object>of(8L, true, 8L, 2L, 10L, 2L, 1850L, 2L))
                    .toSeq()));
    assertThat(rows(path)).isEqualTo(rowsBefore);
    assertThat(search(path, "")).isEqualTo(searchBefore);
    assertThat(search(path, ", filter => 'tenant_id = 2', prefilter => true"))
        .isEqualTo(prefilteredBefore);
    Row again = spark.sql("CALL lance.system.compact('" + path + "', 1000)").first();
    assertThat(again.getLong(0)).isEqualTo(8L);
    assertThat(again.getBoolean(1)).isFalse();

    Row cleaned =
        spark
            .sql("CALL lance.system.cleanup(table => '" + path + "', retain_versions => 1)")
            .first();
    assertThat(cleaned.schema().fieldNames())
        .containsExactly(
            "latest_version",
            "versions_removed",
            "data_files_removed",
            "deletion_files_removed",
            "transaction_files_removed",
            "index_segments_removed",
            "unreferenced_files_removed",
            "bytes_removed");
    assertThat(cleaned.getLong(0)).isEqualTo(8L);
    assertThat(cleaned.getList(1)).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);
    assertThat(cleaned.getLong(2)).isEqualTo(8L);
    assertThat(cleaned.getLong(3)).isEqualTo(2L);
    assertThat(cleaned.getLong(4)).isEqualTo(7L);
    assertThat(cleaned.getLong(5)).isEqualTo(2L);
    assertThat(cleaned.getLong(6)).isZero();
    assertThat(files(path, "data")).isEqualTo(2);
    assertThat(files(path, "_indices")).isEqualTo(2);
    assertThat(rows(path)).isEqualTo(rowsBefore);
    assertThat(search(path, "")).isEqualTo(searchBefore);
    assertThatThrownBy(() -> spark.read().format("lance").option("version", 3).load(path).count())
        .hasStackTraceContaining("Cannot open version 3 of dataset")
        .hasStackTraceContaining("removed by cleanup");
    try (RootAllocator allocator = new RootAllocator();
        org.lance.Dataset lance =
            org.lance.Dataset.open(allocator, path, new ReadOptions.Builder().build())) {
      assertThat(lance.version()).isEqualTo(8);
      assertThat(lance.countRows()).isEqualTo(1850);
      assertThat(lance.getIndexes()).hasSize(2);
    }
  }

  @Test
  void cleanupOlderThanByTableNameKeepsNewerVersions() throws Exception {
    spark.sql(
        "CREATE TABLE lance.db.aged TBLPROPERTIES ('vector.arrow.fixed-size-list.size' = '"
            + SparkProcedureTest.DIM
            + "') AS "
            + SparkProcedureTest.items(0, 100));
    spark.sql("INSERT INTO lance.db.aged " + SparkProcedureTest.items(100, 200));
    String location = root.resolve("db").resolve("aged.lance").toUri().toString();
    Instant v2;
    try (Dataset ds = Dataset.open(location)) {
      v2 = ds.versions().get(1).timestamp();
    }
    Thread.sleep(20);
    spark.sql("INSERT INTO lance.db.aged " + SparkProcedureTest.items(200, 300));
    Row cleaned =
        spark
            .sql("CALL lance.system.cleanup(table => 'db.aged', older_than => '" + v2 + "')")
            .first();
    assertThat(cleaned.getList(1)).containsExactly(1L);
    assertThat(spark.sql("SELECT count(*) FROM lance.db.aged VERSION AS OF 2").first().getLong(0))
        .isEqualTo(200);
    assertThat(spark.sql("SELECT count(*) FROM lance.db.aged").first().getLong(0)).isEqualTo(300);
  }

  @Test
  void explainRunsNothingAndBadInputIsRefused() throws Exception {
    String path = fragmentedDataset("maintenance-explain");
    long dataFiles = files(path, "data");
    for (String call :
        List.of(
            "CALL lance.system.compact(table => '" + path + "')",
            "CALL lance.system.cleanup(table => '" + path + "', retain_versions => 1)")) {
      assertThat(spark.sql("EXPLAIN " + call).first().getString(0)).contains("lance.system.");
    }
    assertThat(SparkProcedureTest.version(path)).isEqualTo(4);
    assertThat(files(path, "_versions")).isEqualTo(4 + 1); // manifests and the version hint
    assertThat(files(path, "data")).isEqualTo(dataFiles);

    String cleanupUsage =
        "Usage: CALL lance.system.cleanup(table => <string> [, older_than => <string>, "
            + "retain_versions => <bigint>, delete_unverified => <boolean>])";
    assertThatThrownBy(() -> spark.sql("CALL lance.system.cleanup(table => '" + path + "')"))
        .hasMessageContaining(
            "Cannot run lance.system.cleanup: give older_than (a timestamp) and/or retain_versions")
        .hasMessageContaining(cleanupUsage);
    assertThatThrownBy(
            () ->
                spark.sql(
                    "CALL lance.system.cleanup(table => '"
                        + path
                        + "', older_than => 'yesterday')"))
        .hasMessageContaining("argument older_than \"yesterday\" is not a timestamp");
    assertThatThrownBy(
            () ->
                spark.sql(
                    "CALL lance.system.cleanup(table => '" + path + "', retain_versions => 0)"))
        .hasMessageContaining("argument retain_versions must be at least 1");
    assertThatThrownBy(
            () ->
                spark.sql(
                    "CALL lance.system.cleanup(table => '" + path + "', retain_versions => 'two')"))
        .hasMessageContaining("parameter retain_versions takes a BIGINT, got a STRING");
    assertThatThrownBy(
            () ->
                spark.sql(
                    "CALL lance.system.compact(table => '"
                        + path
                        + "', target_rows_per_fragment => 0)"))
        .hasMessageContaining(
            "Cannot run lance.system.compact: argument target_rows_per_fragment must be between 1")
        .hasMessageContaining(
            "Usage: CALL lance.system.compact(table => <string> [, target_rows_per_fragment => "
                + "<bigint>, materialize_deletions => <boolean>, target_base => <string>])");
    assertThatThrownBy(() -> spark.sql("CALL lance.system.compact(table => 'db.nowhere')"))
        .hasMessageContaining("table \"db.nowhere\" does not exist");
    assertThat(SparkProcedureTest.version(path)).isEqualTo(4);
  }
}
