package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.testing.StandardData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.lance.WriteParams;

/**
 * S1 and F2 through Spark: datasets written by lance-core 7.0.0 (several fragments and versions,
 * deletions of both kinds) read row-for-row identically by spark.read.format("lance").
 */
class SparkReadTest extends SharedSpark {
  static Path dir;

  @BeforeAll
  static void writeWithLance() throws Exception {
    dir = Files.createTempDirectory("spark-read");
    LanceOracle.write(
        allocator, dir, 0, 9000, 128, 11, WriteParams.WriteMode.CREATE, 6000); // v1: 6000 + 3000
    LanceOracle.write(
        allocator, dir, 9000, 3000, 128, 11, WriteParams.WriteMode.APPEND, 6000); // v2: + 3000
    try (var ds = LanceOracle.open(allocator, dir)) {
      ds.delete("id % 5 = 0 AND id >= 6000"); // v3: 600 + 600 rows, Arrow IPC deletion files
      ds.delete("id >= 200 AND id < 5700"); // v4: 5500 rows of fragment 0, a Roaring .bin file
      ds.delete("id >= 9000 AND id < 9100"); // v5: fragment 2's deletion file grows
    }
  }

  static List<List<Object>> sparkRows(Dataset<Row> df) {
    List<List<Object>> out = new ArrayList<>();
    for (Row r : df.collectAsList()) {
      List<Object> row = new ArrayList<>();
      for (int i = 0; i < r.length(); i++) {
        Object v = r.get(i);
        if (v instanceof scala.collection.Seq<?> seq) {
          v = new ArrayList<>(scala.jdk.javaapi.CollectionConverters.asJava(seq));
        }
        row.add(v);
      }
      out.add(row);
    }
    return out;
  }

  static Comparator<List<Object>> byId() {
    return Comparator.comparingLong(r -> (Long) r.get(0));
  }

  @Test
  void schemaMapsVectorsToFloatArraysWithTheirDimension() {
    StructType schema = spark.read().format("lance").load(dir.toString()).schema();
    assertThat(schema.fieldNames()).containsExactly("id", "tenant_id", "name", "vector");
    assertThat(schema.apply("id").dataType()).isEqualTo(DataTypes.LongType);
    assertThat(schema.apply("tenant_id").dataType()).isEqualTo(DataTypes.IntegerType);
    assertThat(schema.apply("name").dataType()).isEqualTo(DataTypes.StringType);
    assertThat(schema.apply("vector").dataType())
        .isEqualTo(new ArrayType(DataTypes.FloatType, true));
    assertThat(schema.apply("vector").metadata().getLong("arrow.fixed-size-list.size"))
        .isEqualTo(128);
  }

  @Test
  void everyRowMatchesLance() {
    List<String> cols = List.of("id", "tenant_id", "name", "vector");
    List<List<Object>> expected = LanceOracle.rows(allocator, dir, cols, null);
    List<List<Object>> actual = sparkRows(spark.read().format("lance").load(dir.toString()));
    expected.sort(byId());
    actual.sort(byId());
    assertThat(actual).hasSize(expected.size());
    assertThat(actual).isEqualTo(expected);
  }

  /**
   * A dataset lance-core wrote across two bases (a dataset root registered as base {@code cold} and
   * the dataset's own root), with deletions, and a shallow clone of it (every file reached through
   * a base): Spark reads each as Lance does, by path and in SQL.
   */
  @Test
  void multiBaseDatasetsAndShallowClonesReadAsLance() throws Exception {
    Path tmp = Files.createTempDirectory("spark-bases");
    Path ds = tmp.resolve("ds");
    for (int i = 0; i < 2; i++) {
      try (var batch = StandardData.generate(allocator, i * 700L, 700, 8, 3)) {
        var w =
            org.lance.Dataset.write()
                .allocator(allocator)
                .reader(ArrowStreams.readerOf(allocator, List.of(batch)))
                .uri(ds.toString())
                .mode(i == 0 ? WriteParams.WriteMode.CREATE : WriteParams.WriteMode.APPEND)
                .maxRowsPerFile(300);
        if (i == 0) {
          w.initialBases(
                  List.of(
                      new org.lance.BasePath(
                          1, Optional.of("cold"), tmp.resolve("cold").toString(), true)))
              .targetBases(List.of("cold"));
        }
        w.execute().close();
      }
    }
    Path clone = tmp.resolve("clone");
    try (var lance = LanceOracle.open(allocator, ds)) {
      lance.delete("id % 9 = 4");
      lance.shallowClone(clone.toString(), org.lance.Ref.ofMain(lance.version())).close();
    }
    List<String> cols = List.of("id", "tenant_id", "name", "vector");
    for (Path dataset : List.of(ds, clone)) {
      List<List<Object>> expected = LanceOracle.rows(allocator, dataset, cols, null);
      List<List<Object>> actual = sparkRows(spark.read().format("lance").load(dataset.toString()));
      expected.sort(byId());
      actual.sort(byId());
      assertThat(actual).hasSize(1400 - 156).isEqualTo(expected);
      List<List<Object>> sql =
          sparkRows(
              spark.sql(
                  "SELECT id, tenant_id, name, vector FROM lance.`"
                      + dataset
                      + "` WHERE tenant_id < 5 ORDER BY id"));
      assertThat(sql)
          .isEqualTo(
              expected.stream().filter(r -> r.get(1) != null && (Integer) r.get(1) < 5).toList())
          .isNotEmpty();
    }
  }

  @Test
  void filtersArePushedAndAgreeWithLance() {
    Dataset<Row> df =
        spark
            .read()
            .format("lance")
            .load(dir.toString())
            .filter(
                "tenant_id = 42 OR (name LIKE 'user-1%' AND id BETWEEN 100 AND 5000) OR name IS NULL")
            .select("id", "tenant_id", "name");
    String plan = df.queryExecution().executedPlan().toString();
    assertThat(plan).contains("LanceScan").contains("filter=");
    List<List<Object>> actual = sparkRows(df);
    List<List<Object>> expected =
        LanceOracle.rows(
            allocator,
            dir,
            List.of("id", "tenant_id", "name"),
            "tenant_id = 42 OR (name LIKE 'user-1%' AND id >= 100 AND id <= 5000) OR name IS NULL");
    actual.sort(byId());
    expected.sort(byId());
    assertThat(actual).isEqualTo(expected);
    assertThat(actual).isNotEmpty();
  }

  @Test
  void columnPruningReadsOnlyAskedColumns() {
    Dataset<Row> df = spark.read().format("lance").load(dir.toString()).select("tenant_id");
    assertThat(df.queryExecution().executedPlan().toString()).contains("columns=[tenant_id]");
    assertThat(df.count()).isEqualTo(LanceOracle.countRows(allocator, dir));
  }

  @Test
  void oneInputPartitionPerFragmentAndLargeFragmentsAreSplit() {
    assertThat(spark.read().format("lance").load(dir.toString()).rdd().getNumPartitions())
        .isEqualTo(3);
    Dataset<Row> split =
        spark.read().format("lance").option("max_rows_per_partition", "1000").load(dir.toString());
    assertThat(split.rdd().getNumPartitions()).isEqualTo(6 + 3 + 3);
    assertThat(split.count()).isEqualTo(LanceOracle.countRows(allocator, dir));
  }

  @Test
  void timeTravelWithTheVersionOption() {
    assertThat(spark.read().format("lance").option("version", 1).load(dir.toString()).count())
        .isEqualTo(9000);
    assertThat(spark.read().format("lance").option("version", "2").load(dir.toString()).count())
        .isEqualTo(12000);
    assertThat(spark.read().format("lance").option("versionAsOf", "3").load(dir.toString()).count())
        .isEqualTo(12000 - 1200);
    assertThat(spark.read().format("lance").load(dir.toString()).count())
        .isEqualTo(12000 - 1200 - 5500 - 80); // 20 of the last 100 were already deleted
    assertThatThrownBy(
            () -> spark.read().format("lance").option("version", 99).load(dir.toString()).count())
        .hasMessageContaining("Cannot open version 99")
        .hasMessageContaining("Available versions: 1 to 5");
  }

  @Test
  void missingDatasetIsAClearError() {
    assertThatThrownBy(
            () -> spark.read().format("lance").load(dir.resolve("nope").toString()).count())
        .hasMessageContaining("nope");
  }
}
