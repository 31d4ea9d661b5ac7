package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.ClusteredData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.lance.WriteParams;
import org.lance.merge.MergeInsertParams;

/**
 * F7 through Spark: a dataset lance-core 7.0.0 wrote with stable row ids, then deleted from,
 * updated (merge insert) and compacted, read by SQL and spark.read with {@code _rowid} equal to
 * lance-core's stable ids and {@code _rowaddr} to its addresses.
 */
class SparkStableRowIdsTest extends SharedSpark {
  static Path dir;

  @BeforeAll
  static void writeWithLance() throws Exception {
    dir = Files.createTempDirectory("spark-stable-rowids");
    for (int part = 0; part < 2; part++) {
      try (VectorSchemaRoot batch = ClusteredData.generate(allocator, part * 600L, 600, 16, 8, 3)) {
        org.lance.Dataset.write()
            .allocator(allocator)
            .reader(ArrowStreams.readerOf(allocator, List.of(batch)))
            .uri(dir.toString())
            .mode(part == 0 ? WriteParams.WriteMode.CREATE : WriteParams.WriteMode.APPEND)
            .maxRowsPerFile(300)
            .enableStableRowIds(true)
            .execute()
            .close();
      }
    }
    try (org.lance.Dataset lance = dev.lancelot.engine.testing.LanceOracle.open(allocator, dir)) {
      lance.delete("id % 9 = 4");
    }
    try (org.lance.Dataset lance = dev.lancelot.engine.testing.LanceOracle.open(allocator, dir);
        VectorSchemaRoot batch = ClusteredData.generate(allocator, 100, 150, 16, 8, 21);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch));
        ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator)) {
      Data.exportArrayStream(allocator, reader, stream);
      lance.mergeInsert(new MergeInsertParams(List.of("id")).withMatchedUpdateAll(), stream);
    }
    try (org.lance.Dataset lance = dev.lancelot.engine.testing.LanceOracle.open(allocator, dir)) {
      lance.compact();
    }
  }

  @Test
  void sqlAndDataFrameRowIdsAreLanceCoresStableIds() throws Exception {
    Map<Long, long[]> lance = SparkRowLevelTest.lanceAddresses(dir, null);
    Map<Long, long[]> sql = new HashMap<>();
    for (Row r :
        spark.sql("SELECT id, _rowaddr, _rowid FROM lance.`" + dir + "`").collectAsList()) {
      sql.put(r.getLong(0), new long[] {r.getLong(1), r.getLong(2)});
    }
    assertThat(sql).hasSameSizeAs(lance).containsOnlyKeys(lance.keySet());
    lance.forEach(
        (id, expected) -> assertThat(sql.get(id)).as("id %d", id).containsExactly(expected));
    // ids are stable, not addresses: compaction moved the rows, their ids stayed
    assertThat(sql.values().stream().filter(a -> a[0] != a[1]).count()).isPositive();

    Map<Long, Long> frame = new HashMap<>();
    for (Row r :
        spark.read().format("lance").load(dir.toString()).select("id", "_rowid").collectAsList()) {
      frame.put(r.getLong(0), r.getLong(1));
    }
    lance.forEach((id, expected) -> assertThat(frame.get(id)).isEqualTo(expected[1]));
    // filtered by Spark on the stable id
    long someId = lance.values().iterator().next()[1];
    assertThat(
            spark
                .sql("SELECT count(*) FROM lance.`" + dir + "` WHERE _rowid = " + someId)
                .collectAsList()
                .get(0)
                .getLong(0))
        .isEqualTo(1);
  }

  /** _rowid of each id as lance-core reads the dataset at {@code location}. */
  static Map<Long, Long> lanceRowIds(Path location) throws Exception {
    Map<Long, Long> out = new HashMap<>();
    SparkRowLevelTest.lanceAddresses(location, null).forEach((id, a) -> out.put(id, a[1]));
    return out;
  }

  static Map<Long, Long> sparkRowIds(String table) {
    Map<Long, Long> out = new HashMap<>();
    for (Row r : spark.sql("SELECT id, _rowid FROM " + table).collectAsList()) {
      out.put(r.getLong(0), r.getLong(1));
    }
    return out;
  }

  static List<Long> range(long from, long to) {
    return java.util.stream.LongStream.range(from, to).boxed().toList();
  }

  @Test
  void writeOptionCreatesADatasetWithStableRowIdsThatLanceCoreReads() throws Exception {
    Path out = Files.createTempDirectory("spark-create-stable").resolve("t");
    spark
        .range(0, 500)
        .selectExpr("id", "cast(id % 7 as int) as tenant_id")
        .repartition(3)
        .write()
        .format("lance")
        .option("enable_stable_row_ids", "true")
        .option("max_rows_per_file", "100")
        .save(out.toString());
    String table = "lance.`" + out + "`";
    Map<Long, Long> lance = lanceRowIds(out);
    assertThat(lance).hasSize(500);
    assertThat(lance.values()).containsExactlyInAnyOrderElementsOf(range(0, 500));
    assertThat(sparkRowIds(table)).isEqualTo(lance);
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(out.toString())) {
      var m = dev.lancelot.engine.internal.DatasetInternals.snapshot(ds).manifest();
      assertThat(m.getReaderFeatureFlags() & 2).isEqualTo(2);
      assertThat(m.getWriterFeatureFlags() & 2).isEqualTo(2);
    }
    // an append through Spark takes the next ids
    spark.sql("INSERT INTO " + table + " VALUES (1000, 1), (1001, 2)");
    Map<Long, Long> after = lanceRowIds(out);
    assertThat(List.of(after.get(1000L), after.get(1001L)))
        .containsExactlyInAnyOrderElementsOf(range(500, 502));
    assertThat(sparkRowIds(table)).isEqualTo(after);
    // a BTree built in Spark tasks stores the stable ids: its answers are the scan's
    spark.conf().set(dev.lancelot.spark.index.LanceIndexBuilder.ROWS_PER_SEGMENT_CONF, "200");
    try {
      spark.sql(
          "CALL lance.system.create_scalar_index(table => '" + out + "', column => 'tenant_id')");
    } finally {
      spark.conf().unset(dev.lancelot.spark.index.LanceIndexBuilder.ROWS_PER_SEGMENT_CONF);
    }
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(out.toString())) {
      assertThat(ds.indexes().segments("tenant_id_idx").size()).isGreaterThan(1);
      for (String filter : List.of("tenant_id = 3", "tenant_id < 2", "tenant_id IN (1, 6)")) {
        var q = dev.lancelot.engine.index.scalar.ScalarIndexQuery.plan(ds, filter);
        assertThat(q.uncoveredFragments()).isEmpty();
        assertThat(q.evaluate().withoutDeletedRows(ds).count())
            .as(filter)
            .isEqualTo(ds.newScan().filter(filter).countRows())
            .isPositive();
      }
    }
    // UPDATE keeps every row's id, the updated rows' included
    spark.sql("UPDATE " + table + " SET tenant_id = 9 WHERE id < 50");
    assertThat(spark.sql("SELECT * FROM " + table + " WHERE tenant_id = 9").count()).isEqualTo(50);
    assertThat(lanceRowIds(out)).isEqualTo(after);
    assertThat(sparkRowIds(table)).isEqualTo(after);
    // MERGE INTO: matched rows keep their ids, inserted rows take fresh ones
    spark.sql(
        "MERGE INTO "
            + table
            + " t USING (SELECT id, CAST(8 AS INT) AS tenant_id FROM range(490, 510)) s"
            + " ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *");
    Map<Long, Long> merged = lanceRowIds(out);
    assertThat(merged).hasSize(512);
    Map<Long, Long> expected = new HashMap<>(after);
    for (long id = 500; id < 510; id++) {
      expected.put(id, merged.get(id));
    }
    assertThat(merged).isEqualTo(expected);
    assertThat(range(500, 510).stream().map(merged::get).toList())
        .containsExactlyInAnyOrderElementsOf(range(502, 512));
    assertThat(spark.sql("SELECT * FROM " + table + " WHERE tenant_id = 8").count()).isEqualTo(20);
    // DELETE removes rows and keeps the others' ids
    spark.sql("DELETE FROM " + table + " WHERE id < 10");
    expected = new HashMap<>(merged);
    for (long id = 0; id < 10; id++) {
      expected.remove(id);
    }
    assertThat(lanceRowIds(out)).isEqualTo(expected);
    assertThat(sparkRowIds(table)).isEqualTo(expected);
  }

  @Test
  void tablePropertyCreatesATableWithStableRowIds() throws Exception {
    Path out = Files.createTempDirectory("spark-table-stable").resolve("t.lance");
    String table = "lance.`" + out.toUri() + "`";
    spark.sql(
        "CREATE TABLE "
            + table
            + " (id BIGINT, tenant_id INT) TBLPROPERTIES ('enable_stable_row_ids' = 'true')");
    spark.sql("INSERT INTO " + table + " VALUES (10, 1), (11, 2), (12, 3)");
    spark.sql("INSERT INTO " + table + " VALUES (13, 4)");
    Map<Long, Long> lance = lanceRowIds(out);
    assertThat(lance).hasSize(4);
    assertThat(List.of(lance.get(10L), lance.get(11L), lance.get(12L)))
        .containsExactlyInAnyOrderElementsOf(range(0, 3));
    assertThat(lance.get(13L)).isEqualTo(3L);
    assertThat(sparkRowIds(table)).isEqualTo(lance);
    Path bad = out.resolveSibling("bad.lance");
    assertThatThrownBy(
            () ->
                spark.sql(
                    "CREATE TABLE lance.`"
                        + bad.toUri()
                        + "` (id BIGINT) TBLPROPERTIES ('enable_stable_row_ids' = 'yes')"))
        .hasMessageContaining("enable_stable_row_ids=\"yes\"");
  }
}
