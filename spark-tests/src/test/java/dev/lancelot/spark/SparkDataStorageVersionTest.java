package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.testing.LanceOracle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * The write option and table property {@code data_storage_version} (lance-spark's name): Spark
 * writes 2.2 datasets that lance-core 7.0.0 reads, appends keep the dataset's version, and versions
 * lancelot cannot write are refused.
 */
class SparkDataStorageVersionTest extends SharedSpark {

  static void assertVersion(Path dir, String version, long rows) {
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThat(ds.dataStorageVersion()).isEqualTo(version);
      assertThat(ds.dataFileVersions()).containsExactly(version);
      assertThat(ds.countRows()).isEqualTo(rows);
    }
    try (org.lance.Dataset lance = LanceOracle.open(allocator, dir)) {
      assertThat(lance.getLanceFileFormatVersion()).isEqualTo(version);
    }
    // lance-core 7 refuses datasets mixing file versions: counting proves there is no mix
    assertThat(LanceOracle.countRows(allocator, dir)).isEqualTo(rows);
  }

  @Test
  void dataFrameWritesA22DatasetAndAppendsKeepIt() throws Exception {
    Path out = Files.createTempDirectory("spark-dsv").resolve("t.lance");
    spark
        .range(0, 500)
        .selectExpr("id", "cast(id % 7 as int) as tenant_id", "concat('n', id) as name")
        .repartition(3)
        .write()
        .format("lance")
        .option("data_storage_version", "2.2")
        .option("max_rows_per_file", "100")
        .save(out.toString());
    assertVersion(out, "2.2", 500);
    assertThat(LanceOracle.longColumn(allocator, out, "id", null))
        .containsExactlyInAnyOrderElementsOf(LongStream.range(0, 500).boxed().toList());
    String table = "lance.`" + out + "`";
    spark.sql("INSERT INTO " + table + " VALUES (1000, 1, 'x'), (1001, 2, 'y')");
    spark
        .range(2000, 2010)
        .selectExpr("id", "cast(id % 7 as int) as tenant_id", "concat('n', id) as name")
        .write()
        .format("lance")
        .mode("append")
        .save(out.toString());
    assertVersion(out, "2.2", 512);
    assertThatThrownBy(
            () ->
                spark
                    .range(0, 3)
                    .selectExpr("id", "cast(id as int) as tenant_id", "'z' as name")
                    .write()
                    .format("lance")
                    .mode("append")
                    .option("data_storage_version", "2.1")
                    .save(out.toString()))
        .hasMessageContaining("appends keep the dataset's version");
    assertVersion(out, "2.2", 512);
  }

  @Test
  void defaultIs21AndUnwritableVersionsAreRefused() throws Exception {
    Path out = Files.createTempDirectory("spark-dsv-default").resolve("t.lance");
    spark.range(0, 20).write().format("lance").save(out.toString());
    assertVersion(out, "2.1", 20);
    for (String bad : List.of("2.0", "legacy", "3")) {
      assertThatThrownBy(
              () ->
                  spark
                      .range(0, 3)
                      .write()
                      .format("lance")
                      .option("data_storage_version", bad)
                      .save(out.resolveSibling("bad-" + bad).toString()))
          .hasMessageContaining("\"" + bad + "\"")
          .hasMessageContaining("2.1 and 2.2");
    }
  }

  @Test
  void tablePropertyOnCreateAndCtas() throws Exception {
    Path base = Files.createTempDirectory("spark-dsv-table");
    Path created = base.resolve("created.lance");
    spark.sql(
        "CREATE TABLE lance.`"
            + created.toUri()
            + "` (id BIGINT, name STRING) TBLPROPERTIES ('data_storage_version' = '2.2')");
    spark.sql("INSERT INTO lance.`" + created.toUri() + "` VALUES (1, 'a'), (2, NULL)");
    assertVersion(created, "2.2", 2);
    Path ctas = base.resolve("ctas.lance");
    spark.sql(
        "CREATE TABLE lance.`"
            + ctas.toUri()
            + "` TBLPROPERTIES ('data_storage_version' = '2.2') AS SELECT id, id * 2 AS twice"
            + " FROM range(0, 300)");
    assertVersion(ctas, "2.2", 300);
    assertThatThrownBy(
            () ->
                spark.sql(
                    "CREATE TABLE lance.`"
                        + base.resolve("bad.lance").toUri()
                        + "` (id BIGINT) TBLPROPERTIES ('data_storage_version' = '2.0')"))
        .hasMessageContaining("\"2.0\"");
  }
}
