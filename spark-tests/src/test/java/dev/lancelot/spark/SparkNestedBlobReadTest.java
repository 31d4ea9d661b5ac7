package dev.lancelot.spark;

import static dev.lancelot.engine.dataset.NestedBlobOracleTest.SIZES;
import static dev.lancelot.engine.dataset.NestedBlobOracleTest.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.dataset.NestedBlobOracleTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Blob fields inside structs that lance-core 7.0.0 wrote ({@link NestedBlobOracleTest#lanceWrite},
 * where lancelot's engine reads are checked against lance-core's) read through {@code spark.read}
 * and SQL as {@code binary} members, and reached one row at a time by {@code lance_blob} with the
 * dotted path; a blob field inside a list is refused naming it.
 */
class SparkNestedBlobReadTest extends SharedSpark {

  @ParameterizedTest
  @ValueSource(strings = {"2.1", "2.2"})
  void blobsInsideStructsReadAsBinary(String version) throws Exception {
    Path dir = Files.createTempDirectory("spark-nested-blobs").resolve("t");
    NestedBlobOracleTest.lanceWrite(dir, version, true, allocator);
    String uri = dir.toString();
    var df = spark.read().format("lance").load(uri);
    StructType s = (StructType) df.schema().apply("s").dataType();
    assertThat(s.apply("b").dataType()).isEqualTo(DataTypes.BinaryType);
    df.createOrReplaceTempView("nested_blobs_" + version.replace('.', '_'));
    List<Row> rows =
        spark
            .sql(
                "SELECT id, s.b, s.x, t.u.c, s IS NULL FROM nested_blobs_"
                    + version.replace('.', '_')
                    + " ORDER BY id")
            .collectAsList();
    assertThat(rows).hasSize(SIZES.length);
    for (int i = 0; i < SIZES.length; i++) {
      Row r = rows.get(i);
      assertThat(r.getLong(0)).isEqualTo(i);
      assertThat((byte[]) r.get(1))
          .as("s.b of row %d", i)
          .isEqualTo(SIZES[i] < 0 ? null : value(i, SIZES[i]));
      assertThat(r.getBoolean(4)).isEqualTo(SIZES[i] == -2);
      assertThat(r.isNullAt(2)).isEqualTo(SIZES[i] == -2);
      byte[] c = i == 4 || i == 6 || i == 8 ? null : value(100 + i, i % 3 == 0 ? 80_000 : i);
      assertThat((byte[]) r.get(3)).as("t.u.c of row %d", i).isEqualTo(c);
    }
    // row 3 (fragment 0) and row 7 (fragment 1, offset 2) through lance_blob
    Row one = spark.sql("SELECT size, bytes FROM lance_blob('" + uri + "', 's.b', 3)").first();
    assertThat(one.getLong(0)).isEqualTo(SIZES[3]);
    assertThat((byte[]) one.get(1)).isEqualTo(value(3, SIZES[3]));
    Row other =
        spark
            .sql("SELECT bytes FROM lance_blob('" + uri + "', 's.b', " + ((1L << 32) | 2) + ")")
            .first();
    assertThat((byte[]) other.get(0)).isEqualTo(value(7, SIZES[7]));
    assertThatThrownBy(() -> spark.read().format("lance").load(uri).select("l").collectAsList())
        .hasStackTraceContaining("blob field \"item\"")
        .hasStackTraceContaining("without the list lengths");
  }
}
