package dev.lancelot.spark;

import static dev.lancelot.engine.dataset.BlobOracleTest.SIZES;
import static dev.lancelot.engine.dataset.BlobOracleTest.address;
import static dev.lancelot.engine.dataset.BlobOracleTest.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.dataset.BlobOracleTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Row;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code lance_blob(path, column, row_id [, offset, length])} on datasets lance-core wrote (legacy
 * blobs in 2.1, blob v2 with inline, packed and dedicated blobs in 2.2): one row's bytes or a range
 * of them, null values, and clear errors for deleted and absent rows, bad ranges and columns that
 * are not blob columns.
 */
class SparkBlobFunctionTest extends SharedSpark {

  static Row one(String sql) {
    List<Row> rows = spark.sql(sql).collectAsList();
    assertThat(rows).hasSize(1);
    return rows.get(0);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"2.1", "2.2"})
  void readsOneBlobOrARangeByRowId(String version) throws Exception {
    Path dir = Files.createTempDirectory("spark-blob-function");
    String uri = BlobOracleTest.write(dir, version, allocator).toString();
    for (int i : new int[] {0, 1, 2, 7, 11}) {
      Row r = one("SELECT * FROM lance_blob('" + uri + "', 'b', " + address(i) + ")");
      assertThat(r.getLong(0)).isEqualTo(address(i));
      assertThat(r.getLong(1)).isEqualTo(SIZES[i]);
      assertThat(r.getLong(2)).isZero();
      assertThat((byte[]) r.get(3)).as("row %d", i).isEqualTo(value(i));
    }
    Row range =
        one("SELECT bytes FROM lance_blob('" + uri + "', 'b', " + address(7) + ", 4000000, 1000)");
    assertThat((byte[]) range.get(0)).isEqualTo(Arrays.copyOfRange(value(7), 4_000_000, 4_001_000));
    Row named =
        one(
            "SELECT size, bytes FROM lance_blob(path => '"
                + uri
                + "', column => 'b', row_address => "
                + address(1)
                + ", offset => 99990)");
    assertThat(named.getLong(0)).isEqualTo(SIZES[1]);
    assertThat((byte[]) named.get(1)).isEqualTo(Arrays.copyOfRange(value(1), 99_990, 100_000));
    Row nullValue = one("SELECT * FROM lance_blob('" + uri + "', 'b', " + address(3) + ")");
    assertThat(nullValue.isNullAt(1)).isTrue();
    assertThat(nullValue.isNullAt(3)).isTrue();
    Row empty = one("SELECT * FROM lance_blob('" + uri + "', 'b', " + address(4) + ")");
    assertThat(empty.getLong(1)).isZero();
    assertThat((byte[]) empty.get(3)).isEmpty();

    assertThatThrownBy(
            () -> spark.sql("SELECT * FROM lance_blob('" + uri + "', 'b', " + (9L << 32) + ")"))
        .hasMessageContaining("no such row");
    assertThatThrownBy(() -> spark.sql("SELECT * FROM lance_blob('" + uri + "', 'b', 0, 5, 100)"))
        .hasMessageContaining("within the blob");
    assertThatThrownBy(() -> spark.sql("SELECT * FROM lance_blob('" + uri + "', 'id', 0)"))
        .hasMessageContaining("not a blob column");
    assertThatThrownBy(
            () -> spark.sql("SELECT * FROM lance_blob('" + uri + "', 'b', 0, nope => 1)"))
        .hasMessageContaining("unknown argument \"nope\"");
    spark.sql("DELETE FROM lance.`" + uri + "` WHERE id = 8");
    assertThatThrownBy(
            () -> spark.sql("SELECT * FROM lance_blob('" + uri + "', 'b', " + address(8) + ")"))
        .hasMessageContaining("the row is deleted");
    // the version before the delete still has the row
    Row before =
        one("SELECT bytes FROM lance_blob('" + uri + "', 'b', " + address(8) + ", version => 1)");
    assertThat((byte[]) before.get(0)).isEqualTo(value(8));
  }
}
