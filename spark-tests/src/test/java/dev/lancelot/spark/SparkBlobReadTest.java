package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.dataset.BlobOracleTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Blob columns lance-core 7.0.0 wrote (legacy blobs in 2.0 and 2.1, blob v2 with inline, packed and
 * dedicated blobs in 2.2; {@link BlobOracleTest#write}) read through {@code spark.read} and SQL as
 * {@code binary}, every row's bytes as written (the bytes lance-core's {@code takeBlobs} returns,
 * checked in {@link BlobOracleTest}); a query that does not select the column reads none of its
 * bytes.
 */
class SparkBlobReadTest extends SharedSpark {
  static Path dir;

  @BeforeAll
  static void writeWithLance() throws Exception {
    dir = Files.createTempDirectory("spark-blobs");
    for (String version : List.of("2.0", "2.1", "2.2")) {
      BlobOracleTest.write(dir, version, allocator);
    }
  }

  static long bytesRead(Dataset<Row> df) {
    SparkPlan scan =
        CollectionConverters.asJava(df.queryExecution().executedPlan().collectLeaves()).get(0);
    Map<String, SQLMetric> metrics = CollectionConverters.asJava(scan.metrics());
    return metrics.get("bytesRead").value();
  }

  @ParameterizedTest
  @ValueSource(strings = {"2.0", "2.1", "2.2"})
  void blobColumnsReadAsBinaryAndOnlyWhenSelected(String version) {
    String uri = dir.resolve("blobs-" + version).toString();
    long blobBytes = 0;
    for (int s : BlobOracleTest.SIZES) {
      blobBytes += Math.max(s, 0);
    }
    Dataset<Row> df = spark.read().format("lance").load(uri);
    assertThat(df.schema().apply("b").dataType()).isEqualTo(DataTypes.BinaryType);
    Dataset<Row> all = df.select("id", "b").orderBy("id");
    List<Row> rows = all.collectAsList();
    assertThat(rows).hasSize(BlobOracleTest.SIZES.length);
    for (int i = 0; i < rows.size(); i++) {
      assertThat(rows.get(i).getLong(0)).isEqualTo(i);
      assertThat((byte[]) rows.get(i).get(1))
          .as("row %d", i)
          .isEqualTo(BlobOracleTest.SIZES[i] < 0 ? null : BlobOracleTest.value(i));
    }

    Dataset<Row> withBlob = df.select("id", "b");
    withBlob.collectAsList();
    assertThat(bytesRead(withBlob)).isGreaterThanOrEqualTo(blobBytes);
    Dataset<Row> withoutBlob = df.select("id");
    assertThat(withoutBlob.collectAsList()).hasSize(BlobOracleTest.SIZES.length);
    assertThat(bytesRead(withoutBlob)).isPositive().isLessThan(100_000);

    spark.read().format("lance").load(uri).createOrReplaceTempView("blobs");
    List<Row> sql =
        spark
            .sql("SELECT id, length(b), b FROM blobs WHERE id IN (1, 3, 4, 7) ORDER BY id")
            .collectAsList();
    assertThat(sql).hasSize(4);
    assertThat(sql.get(0).get(1)).isEqualTo(BlobOracleTest.SIZES[1]);
    assertThat((byte[]) sql.get(0).get(2)).isEqualTo(BlobOracleTest.value(1));
    assertThat(sql.get(1).isNullAt(2)).isTrue();
    assertThat((byte[]) sql.get(2).get(2)).isEmpty();
    assertThat((byte[]) sql.get(3).get(2)).isEqualTo(BlobOracleTest.value(7));
  }
}
