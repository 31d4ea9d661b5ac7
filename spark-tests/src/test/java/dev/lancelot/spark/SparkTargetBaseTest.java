package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.LanceOracle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/**
 * The write option {@code target_base} (decision D62): Spark's write tasks put their data files
 * under a base the dataset registers (lance-core 7.0.0's {@code initialBases}), and lance-core
 * reads every row; an unknown base is refused before any task writes. The procedures {@code
 * compact} and {@code add_columns} take argument {@code target_base} the same way (decision D68).
 */
class SparkTargetBaseTest extends SharedSpark {

  /** A dataset lance-core creates with ids 0..99 and a dataset-root base "b1" at {@code b1}. */
  static void lanceCreate(Path ds, Path b1) {
    BigIntVector id = new BigIntVector("id", allocator);
    id.allocateNew(100);
    for (int i = 0; i < 100; i++) {
      id.set(i, i);
    }
    id.setValueCount(100);
    try (VectorSchemaRoot batch = new VectorSchemaRoot(List.of(id.getField()), List.of(id), 100)) {
      org.lance.Dataset.write()
          .allocator(allocator)
          .reader(ArrowStreams.readerOf(allocator, List.of(batch)))
          .uri(ds.toString())
          .mode(org.lance.WriteParams.WriteMode.CREATE)
          .initialBases(List.of(new org.lance.BasePath(1, Optional.of("b1"), b1.toString(), true)))
          .execute()
          .close();
    }
  }

  static long filesUnder(Path dir) throws Exception {
    if (!Files.exists(dir)) {
      return 0;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile).count();
    }
  }

  @Test
  void sparkWritesGoToTheNamedBaseAndLanceReadsThem() throws Exception {
    Path tmp = Files.createTempDirectory("spark-target-base");
    Path ds = tmp.resolve("t.lance");
    Path b1 = tmp.resolve("b1");
    lanceCreate(ds, b1);
    long rootFiles = filesUnder(ds.resolve("data"));
    spark
        .range(100, 400)
        .repartition(3)
        .write()
        .format("lance")
        .mode("append")
        .option("target_base", "b1")
        .option("max_rows_per_file", "50")
        .save(ds.toString());
    assertThat(filesUnder(b1.resolve("data"))).isGreaterThanOrEqualTo(6);
    assertThat(filesUnder(ds.resolve("data"))).isEqualTo(rootFiles);
    assertThat(LanceOracle.longColumn(allocator, ds, "id", null))
        .containsExactlyInAnyOrderElementsOf(LongStream.range(0, 400).boxed().toList());
    assertThat(spark.read().format("lance").load(ds.toString()).count()).isEqualTo(400);

    long b1Files = filesUnder(b1.resolve("data"));
    assertThatThrownBy(
            () ->
                spark
                    .range(0, 3)
                    .write()
                    .format("lance")
                    .mode("append")
                    .option("target_base", "nope")
                    .save(ds.toString()))
        .hasMessageContaining("Cannot write to base \"nope\"")
        .hasMessageContaining("the dataset's bases are [b1=");
    assertThat(filesUnder(b1.resolve("data"))).isEqualTo(b1Files);
    assertThat(LanceOracle.countRows(allocator, ds)).isEqualTo(400);
  }

  @Test
  void compactAndAddColumnsWriteUnderTheNamedBase() throws Exception {
    Path tmp = Files.createTempDirectory("spark-target-base-procedures");
    Path ds = tmp.resolve("t.lance");
    Path b1 = tmp.resolve("b1");
    lanceCreate(ds, b1);
    for (int i = 0; i < 3; i++) {
      spark
          .range(100 + i * 10, 110 + i * 10)
          .write()
          .format("lance")
          .mode("append")
          .save(ds.toString());
    }
    long rootFiles = filesUnder(ds.resolve("data"));
    assertThat(filesUnder(b1)).isZero();
    org.apache.spark.sql.Row r =
        spark
            .sql(
                "CALL lance.system.compact(table => '"
                    + ds
                    + "', target_rows_per_fragment => 1000, target_base => 'b1')")
            .first();
    assertThat(r.getBoolean(1)).isTrue();
    assertThat(filesUnder(b1.resolve("data"))).isEqualTo(r.getLong(5));
    assertThat(filesUnder(ds.resolve("data"))).isEqualTo(rootFiles);
    assertThat(LanceOracle.longColumn(allocator, ds, "id", null))
        .containsExactlyInAnyOrderElementsOf(LongStream.range(0, 130).boxed().toList());

    long b1Files = filesUnder(b1.resolve("data"));
    spark.sql(
        "CALL lance.system.add_columns(table => '"
            + ds
            + "', column => 'twice', expression => 'id * 2', target_base => 'b1')");
    assertThat(filesUnder(b1.resolve("data"))).isGreaterThan(b1Files);
    assertThat(filesUnder(ds.resolve("data"))).isEqualTo(rootFiles);
    assertThat(LanceOracle.rows(allocator, ds, List.of("id", "twice"), null))
        .hasSize(130)
        .allSatisfy(row -> assertThat(row.get(1)).isEqualTo((Long) row.get(0) * 2));

    for (String call :
        List.of(
            "CALL lance.system.compact(table => '" + ds + "', target_base => 'nope')",
            "CALL lance.system.add_columns(table => '"
                + ds
                + "', column => 'x', expression => 'id', target_base => 'nope')")) {
      assertThatThrownBy(() -> spark.sql(call).collect())
          .as(call)
          .hasMessageContaining("to base \"nope\"")
          .hasMessageContaining("b1=");
    }
    assertThat(filesUnder(ds.resolve("data"))).isEqualTo(rootFiles);
  }
}
