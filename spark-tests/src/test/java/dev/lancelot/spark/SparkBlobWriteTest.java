package dev.lancelot.spark;

import static dev.lancelot.engine.dataset.BlobOracleTest.SIZES;
import static dev.lancelot.engine.dataset.BlobOracleTest.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.dataset.BlobWriteOracleTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Spark writes of blob columns, asked for as lance-spark does ({@code '<column>.lance.encoding' =
 * 'blob'} as a write option or table property) or by the column's metadata {@code
 * lance-encoding:blob = true}: lance-core reads every row's blob back (its {@code takeBlobs}),
 * legacy blobs in 2.1 and blob v2 in 2.2, and appends and updates keep the column a blob column.
 */
class SparkBlobWriteTest extends SharedSpark {
  static Path dir;

  @BeforeAll
  static void makeDir() throws Exception {
    dir = Files.createTempDirectory("spark-blob-writes");
  }

  /** Rows {@code [from, to)} of {@link #SIZES}: {@code (id + idBase, bytes)}. */
  static Dataset<Row> frame(int from, int to, long idBase, Metadata blobMeta) {
    List<Row> rows = new ArrayList<>();
    for (int i = from; i < to; i++) {
      rows.add(RowFactory.create(i + idBase, SIZES[i] < 0 ? null : value(i)));
    }
    StructType schema =
        new StructType(
            new StructField[] {
              new StructField("id", DataTypes.LongType, false, Metadata.empty()),
              new StructField("b", DataTypes.BinaryType, true, blobMeta)
            });
    return spark.createDataFrame(rows, schema).repartition(1);
  }

  static void checkLanceReadsBlobs(String uri, int rows, boolean v2) throws Exception {
    Map<Long, byte[]> theirs = BlobWriteOracleTest.lanceBlobsById(uri, allocator);
    assertThat(theirs).hasSize(rows);
    BlobWriteOracleTest.assertBlobs(theirs, true, "lance-core, " + uri);
    try (org.lance.Dataset lance = org.lance.Dataset.open().allocator(allocator).uri(uri).build()) {
      org.apache.arrow.vector.types.pojo.Field b = lance.getSchema().findField("b");
      assertThat(b.getMetadata())
          .containsEntry(
              v2 ? "ARROW:extension:name" : "lance-encoding:blob", v2 ? "lance.blob.v2" : "true");
    }
    List<Row> ours = spark.read().format("lance").load(uri).orderBy("id").collectAsList();
    assertThat(ours).hasSize(rows);
    for (Row r : ours) {
      int row = (int) (r.getLong(0) % 100);
      assertThat((byte[]) r.get(1)).isEqualTo(SIZES[row] < 0 ? null : value(row));
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"2.1", "2.2"})
  void dataFrameWritesWithTheOptionThenSqlAppends(String version) throws Exception {
    String uri = dir.resolve("df-" + version).toString();
    frame(0, SIZES.length, 0, Metadata.empty())
        .write()
        .format("lance")
        .option("b.lance.encoding", "blob")
        .option("data_storage_version", version)
        .option("max_rows_per_file", "7")
        .save(uri);
    checkLanceReadsBlobs(uri, SIZES.length, version.equals("2.2"));
    // an append without the option: the dataset's column is a blob column
    frame(0, SIZES.length, 100, Metadata.empty()).createOrReplaceTempView("more_blobs");
    spark.sql("INSERT INTO lance.`" + uri + "` SELECT id, b FROM more_blobs");
    checkLanceReadsBlobs(uri, 2 * SIZES.length, version.equals("2.2"));
    // an update rewrites the rows it changes, blobs included (ids keep their value modulo 100)
    spark.sql("UPDATE lance.`" + uri + "` SET id = id + 200 WHERE id IN (2, 3, 7, 104)");
    checkLanceReadsBlobs(uri, 2 * SIZES.length, version.equals("2.2"));
    assertThat(BlobWriteOracleTest.lanceBlobsById(uri, allocator)).containsKeys(202L, 207L, 304L);
  }

  @Test
  void columnMetadataMakesABlobColumn() throws Exception {
    String uri = dir.resolve("metadata").toString();
    Metadata blob = new MetadataBuilder().putString("lance-encoding:blob", "true").build();
    frame(0, SIZES.length, 0, blob).write().format("lance").save(uri);
    checkLanceReadsBlobs(uri, SIZES.length, false);
  }

  @Test
  void tablePropertiesOnCtasAndCreateTable() throws Exception {
    frame(0, SIZES.length, 0, Metadata.empty()).createOrReplaceTempView("blob_source");
    String ctas = dir.resolve("ctas").toUri().toString();
    spark.sql(
        "CREATE TABLE lance.`"
            + ctas
            + "` TBLPROPERTIES ('b.lance.encoding' = 'blob', 'data_storage_version' = '2.2')"
            + " AS SELECT id, b FROM blob_source");
    checkLanceReadsBlobs(ctas, SIZES.length, true);

    String created = dir.resolve("created").toUri().toString();
    spark.sql(
        "CREATE TABLE lance.`"
            + created
            + "` (id BIGINT, b BINARY) TBLPROPERTIES ('b.lance.encoding' = 'blob')");
    spark.sql("INSERT INTO lance.`" + created + "` SELECT id, b FROM blob_source");
    checkLanceReadsBlobs(created, SIZES.length, false);
  }

  @Test
  void blobEncodingOfOtherColumnsOrOtherEncodingsIsRefused() {
    String uri = dir.resolve("refused").toString();
    assertThatThrownBy(
            () ->
                frame(0, 2, 0, Metadata.empty())
                    .write()
                    .format("lance")
                    .option("id.lance.encoding", "blob")
                    .save(uri))
        .hasMessageContaining("Cannot make \"id\" a blob column")
        .hasMessageContaining("not BINARY");
    assertThatThrownBy(
            () ->
                frame(0, 2, 0, Metadata.empty())
                    .write()
                    .format("lance")
                    .option("b.lance.encoding", "zstd")
                    .save(uri))
        .hasMessageContaining("the only Lance column encoding lancelot sets is 'blob'");
    assertThat(Files.exists(Path.of(uri))).isFalse();
  }
}
