package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentInfo;
import dev.lancelot.engine.VersionInfo;
import dev.lancelot.engine.testing.LanceOracle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.lance.WriteParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * Metadata columns ({@code _rowaddr}, {@code _rowid}, {@code _fragid}) against lance-core's, and
 * UPDATE / MERGE INTO / DELETE by any condition through Spark's row-level plans: one version per
 * statement that lance-core reads identically, vector search (IVF index plus flat search of the new
 * fragments) never returning a deleted or superseded row, in Spark and in lance-core; a concurrent
 * commit to the same fragments fails the statement, a concurrent append does not.
 */
class SparkRowLevelTest extends SharedSpark {
  static final int DIM = SparkProcedureTest.DIM;
  static Path root;

  /**
   * Run once by the next call of the SQL function {@code concurrently(id)}, inside a task of the
   * statement.
   */
  static final AtomicReference<Runnable> CONCURRENT = new AtomicReference<>();

  @BeforeAll
  static void rootTheCatalog() throws Exception {
    root = Files.createTempDirectory("lance-row-level");
    spark.conf().set("spark.sql.catalog.lance.root", root.toString());
    spark.sql("CREATE NAMESPACE lance.dml");
    spark
        .udf()
        .register(
            "concurrently",
            (UDF1<Long, Boolean>)
                id -> {
                  Runnable r = CONCURRENT.getAndSet(null);
                  if (r != null) {
                    r.run();
                  }
                  return true;
                },
            DataTypes.BooleanType);
  }

  static long count(String sql) {
    return spark.sql(sql).first().getLong(0);
  }

  static List<Long> ids(String sql) {
    return spark.sql(sql).collectAsList().stream().map(r -> r.getLong(0)).toList();
  }

  static String vectorSql(long id) {
    return "transform(sequence(1, " + DIM + "), i -> cast(sin(" + id + " * i) as float))";
  }

  static List<Long> searchIds(String table, long near, int k) {
    return ids(
        "SELECT id FROM lance_vector_search('"
            + table
            + "', column => 'vector', q => array("
            + SparkVectorSearchTest.toSql(SparkProcedureTest.vectorOf(near))
            + "), k => "
            + k
            + ", nprobes => 4)");
  }

  static List<Long> lanceIds(Path dir) {
    return LanceOracle.longColumn(allocator, dir, "id", null).stream().sorted().toList();
  }

  static List<String> operations(String location) {
    try (Dataset ds = Dataset.open(location)) {
      return ds.versions().stream().map(VersionInfo::operation).toList();
    }
  }

  /** id to {_rowaddr, _rowid} as lance-core scans them. */
  static Map<Long, long[]> lanceAddresses(Path dir, String filter) throws Exception {
    Map<Long, long[]> out = new HashMap<>();
    try (org.lance.Dataset ds = LanceOracle.open(allocator, dir)) {
      ScanOptions.Builder opts =
          new ScanOptions.Builder().columns(List.of("id")).withRowId(true).withRowAddress(true);
      if (filter != null) {
        opts.filter(filter);
      }
      try (LanceScanner scanner = ds.newScan(opts.build());
          ArrowReader reader = scanner.scanBatches()) {
        while (reader.loadNextBatch()) {
          VectorSchemaRoot batch = reader.getVectorSchemaRoot();
          BigIntVector id = (BigIntVector) batch.getVector("id");
          UInt8Vector address = (UInt8Vector) batch.getVector("_rowaddr");
          UInt8Vector rowId = (UInt8Vector) batch.getVector("_rowid");
          for (int i = 0; i < batch.getRowCount(); i++) {
            out.put(id.get(i), new long[] {address.get(i), rowId.get(i)});
          }
        }
      }
    }
    return out;
  }

  @Test
  void metadataColumnsAreLanceCoresRowAddressesAndRowIds() throws Exception {
    Path dir = Files.createTempDirectory("lance-meta").resolve("items");
    spark
        .sql(SparkProcedureTest.items(0, 2000))
        .write()
        .format("lance")
        .option("vector.columns", "vector:" + DIM)
        .option("max_rows_per_file", "300")
        .save(dir.toString());
    try (Dataset ds = Dataset.open(dir.toString())) {
      ds.delete("tenant_id = 3");
    }
    String table = "lance.`" + dir + "`";

    Map<Long, long[]> spark = new HashMap<>();
    for (Row r :
        SparkRowLevelTest.spark
            .sql(
                "SELECT id, _rowaddr, _rowid, _fragid FROM "
                    + table
                    + " WHERE id >= 250 AND id < 1700")
            .collectAsList()) {
      assertThat(r.getInt(3)).isEqualTo((int) (r.getLong(1) >>> 32));
      spark.put(r.getLong(0), new long[] {r.getLong(1), r.getLong(2)});
    }
    Map<Long, long[]> lance = lanceAddresses(dir, "id >= 250 AND id < 1700");
    assertThat(spark).hasSize(1450 - 145).containsOnlyKeys(lance.keySet());
    lance.forEach(
        (id, expected) -> assertThat(spark.get(id)).as("id %d", id).containsExactly(expected));
    assertThat(spark.values().stream().map(a -> a[0] >>> 32).distinct().count()).isGreaterThan(2);

    // metadata columns alone, filtered by Spark, and never part of *
    Map<Long, long[]> all = lanceAddresses(dir, null);
    assertThat(ids("SELECT _rowaddr FROM " + table + " ORDER BY _rowaddr"))
        .containsExactlyElementsOf(all.values().stream().map(a -> a[0]).sorted().toList());
    assertThat(count("SELECT count(*) FROM " + table + " WHERE _fragid = 2"))
        .isEqualTo(all.values().stream().filter(a -> a[0] >>> 32 == 2).count())
        .isPositive();
    assertThat(SparkRowLevelTest.spark.sql("SELECT * FROM " + table).columns())
        .containsExactly("id", "tenant_id", "vector");
    // the DataFrame reader offers them too
    assertThat(
            SparkRowLevelTest.spark
                .read()
                .format("lance")
                .load(dir.toString())
                .where("id = 1999")
                .select("_rowaddr")
                .first()
                .getLong(0))
        .isEqualTo(all.get(1999L)[0]);
  }

  @Test
  void updateMergeAndDeleteCommitOneVersionEachThatSearchAndLanceCoreSee() {
    spark.sql(
        "CREATE TABLE lance.dml.items (id BIGINT, tenant_id INT, vector ARRAY<FLOAT>) "
            + "TBLPROPERTIES ('vector.arrow.fixed-size-list.size' = '"
            + DIM
            + "')");
    spark.sql("INSERT INTO lance.dml.items " + SparkProcedureTest.items(0, 2000)); // version 2
    spark.sql(
        "CALL lance.system.create_index(table => 'dml.items', column => 'vector', index_type => 'IVF_PQ', "
            + "num_partitions => 4, num_sub_vectors => 2, seed => 3)"); // version 3
    String location = root.resolve("dml").resolve("items.lance").toUri().toString();
    Path dir = Path.of(java.net.URI.create(location));
    assertThat(searchIds("lance.dml.items", 42, 10)).contains(42L);

    // UPDATE: id 42 takes the vector of id 1500 (its old version must vanish from search)
    spark.sql(
        "UPDATE lance.dml.items SET vector = "
            + vectorSql(1500)
            + ", tenant_id = 99 WHERE id = 42");
    assertThat(SparkProcedureTest.version(location)).isEqualTo(4);
    assertThat(count("SELECT count(*) FROM lance.dml.items")).isEqualTo(2000);
    assertThat(spark.sql("SELECT tenant_id FROM lance.dml.items WHERE id = 42").collectAsList())
        .extracting(r -> r.getInt(0))
        .containsExactly(99);
    assertThat(searchIds("lance.dml.items", 42, 10)).doesNotContain(42L).doesNotHaveDuplicates();
    assertThat(searchIds("lance.dml.items", 1500, 5)).contains(42L, 1500L);
    assertThat(
            LanceOracle.nearestIds(
                allocator, dir, SparkProcedureTest.vectorOf(42), 10, 4, null, false))
        .doesNotContain(42L);
    assertThat(
            LanceOracle.nearestIds(
                allocator, dir, SparkProcedureTest.vectorOf(1500), 5, 4, null, false))
        .contains(42L, 1500L);
    assertThat(LanceOracle.longColumn(allocator, dir, "id", "tenant_id = 99")).containsExactly(42L);

    // UPDATE with a condition only Spark evaluates
    spark.sql("UPDATE lance.dml.items SET tenant_id = tenant_id + 100 WHERE id % 100 = 7");
    assertThat(SparkProcedureTest.version(location)).isEqualTo(5);
    List<Long> sevens = LongStream.range(0, 20).map(i -> i * 100 + 7).boxed().toList();
    assertThat(ids("SELECT id FROM lance.dml.items WHERE tenant_id >= 100 ORDER BY id"))
        .isEqualTo(sevens);
    assertThat(
            LanceOracle.longColumn(allocator, dir, "id", "tenant_id = 107").stream()
                .sorted()
                .toList())
        .isEqualTo(sevens);

    // MERGE INTO with every clause Spark 4.1 has
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW changes AS "
            + "SELECT id, 5 AS tenant_id, "
            + vectorSql(0)
            + " AS vector, 'upsert' AS op FROM range(10, 20) UNION ALL "
            + "SELECT id, 5, "
            + vectorSql(0)
            + ", 'delete' FROM range(20, 25) UNION ALL "
            + "SELECT id, 5, "
            + vectorSql(0).replace("sin(0 * i)", "sin(id * i)")
            + ", 'upsert' FROM range(5000, 5005)");
    spark.sql(
        "MERGE INTO lance.dml.items t USING changes s ON t.id = s.id "
            + "WHEN MATCHED AND s.op = 'delete' THEN DELETE "
            + "WHEN MATCHED THEN UPDATE SET t.tenant_id = s.tenant_id "
            + "WHEN NOT MATCHED THEN INSERT (id, tenant_id, vector) VALUES (s.id, s.tenant_id, s.vector) "
            + "WHEN NOT MATCHED BY SOURCE AND t.id >= 1995 THEN DELETE");
    assertThat(SparkProcedureTest.version(location)).isEqualTo(6);
    List<Long> expected =
        Stream.concat(
                LongStream.range(0, 1995).filter(id -> id < 20 || id >= 25).boxed(),
                LongStream.range(5000, 5005).boxed())
            .toList();
    assertThat(ids("SELECT id FROM lance.dml.items ORDER BY id")).isEqualTo(expected);
    assertThat(lanceIds(dir)).isEqualTo(expected);
    assertThat(
            ids(
                "SELECT id FROM lance.dml.items WHERE tenant_id = 5 AND (id BETWEEN 10 AND 19 OR id >= 5000) "
                    + "ORDER BY id"))
        .containsExactly(
            10L, 11L, 12L, 13L, 14L, 15L, 16L, 17L, 18L, 19L, 5000L, 5001L, 5002L, 5003L, 5004L);
    // the updated rows kept their vectors: row 12 is still found by its own vector
    assertThat(searchIds("lance.dml.items", 12, 1)).containsExactly(12L);
    assertThat(searchIds("lance.dml.items", 5003, 1)).containsExactly(5003L);
    assertThat(searchIds("lance.dml.items", 22, 10)).doesNotContain(22L).doesNotHaveDuplicates();
    assertThat(searchIds("lance.dml.items", 1997, 10)).doesNotContain(1997L);
    assertThat(
            LanceOracle.nearestIds(
                allocator, dir, SparkProcedureTest.vectorOf(5003), 1, 4, null, false))
        .containsExactly(5003L);
    assertThat(
            LanceOracle.nearestIds(
                allocator, dir, SparkProcedureTest.vectorOf(22), 10, 4, null, false))
        .doesNotContain(22L);

    // DELETE: an exact condition stays the engine's delete, any other goes through the row-level
    // plan
    spark.sql("DELETE FROM lance.dml.items WHERE tenant_id = 1");
    spark.sql("DELETE FROM lance.dml.items WHERE id % 3 = 0");
    assertThat(SparkProcedureTest.version(location)).isEqualTo(8);
    // tenant 1 is id % 10 = 1, but for ids 11 and 5001, whose tenant the MERGE set to 5
    List<Long> left =
        expected.stream()
            .filter(id -> (id % 10 != 1 || id == 11 || id == 5001) && id % 3 != 0)
            .toList();
    assertThat(ids("SELECT id FROM lance.dml.items ORDER BY id")).isEqualTo(left);
    assertThat(lanceIds(dir)).isEqualTo(left);
    assertThat(LanceOracle.countRows(allocator, dir)).isEqualTo(left.size());
    assertThat(operations(location))
        .containsExactly(
            "overwrite",
            "append",
            "create index",
            "update",
            "update",
            "update",
            "delete",
            "update");
    // statements that change nothing commit nothing
    spark.sql("UPDATE lance.dml.items SET tenant_id = 0 WHERE id < 0");
    spark.sql("DELETE FROM lance.dml.items WHERE id % 3 = 0");
    assertThat(SparkProcedureTest.version(location)).isEqualTo(8);

    // every row of indexed fragment 1 (ids 1000..1999) changes: the fragment leaves the version,
    // the index still lists it, and searches return each row once, from its new fragment
    spark.sql("UPDATE lance.dml.items SET tenant_id = 6 WHERE id >= 1000 AND id < 2000");
    assertThat(SparkProcedureTest.version(location)).isEqualTo(9);
    try (Dataset ds = Dataset.open(location)) {
      assertThat(ds.fragments()).extracting(FragmentInfo::id).doesNotContain(1L);
    }
    // (id 82 is a near twin of 1502: 1420 is almost 226 turns of 2 pi)
    assertThat(searchIds("lance.dml.items", 1502, 10)).contains(1502L).doesNotHaveDuplicates();
    assertThat(
            LanceOracle.nearestIds(
                allocator, dir, SparkProcedureTest.vectorOf(1502), 10, 4, null, false))
        .contains(1502L)
        .doesNotHaveDuplicates();
    assertThat(
            count(
                "SELECT count(*) FROM lance.dml.items WHERE tenant_id = 6 AND id >= 1000 AND id < 2000"))
        .isEqualTo(left.stream().filter(id -> id >= 1000 && id < 2000).count());
    // once the index covers the new fragments, the same answers come from the index
    spark.sql("CALL lance.system.optimize_index(table => 'dml.items', name => 'vector_idx')");
    assertThat(SparkProcedureTest.version(location)).isEqualTo(10);
    // (approximate PQ distances now: the row is among the nearest, not necessarily first)
    assertThat(searchIds("lance.dml.items", 1502, 10)).contains(1502L).doesNotHaveDuplicates();
    assertThat(searchIds("lance.dml.items", 5003, 10)).contains(5003L).doesNotHaveDuplicates();
    assertThat(searchIds("lance.dml.items", 22, 10)).doesNotContain(22L);
    assertThat(
            LanceOracle.nearestIds(
                allocator, dir, SparkProcedureTest.vectorOf(5003), 10, 4, null, false))
        .contains(5003L)
        .doesNotHaveDuplicates();
    assertThat(lanceIds(dir)).isEqualTo(left);
    spark.sql("DROP TABLE lance.dml.items");
  }

  /** A dataset written by lance-core: ids 0..999 in fragments 0 (0..499) and 1 (500..999). */
  static Path lanceWritten() throws Exception {
    Path dir = Files.createTempDirectory("lance-conflict").resolve("items");
    LanceOracle.write(allocator, dir, 0, 1000, DIM, 3, WriteParams.WriteMode.CREATE, 500);
    return dir;
  }

  static void assertNoUnreferencedDataFiles(Path dir) throws Exception {
    List<String> referenced = new ArrayList<>();
    try (Dataset ds = Dataset.open(dir.toString())) {
      for (FragmentInfo f : ds.fragments()) {
        referenced.addAll(f.dataFiles());
      }
    }
    try (var files = Files.list(dir.resolve("data"))) {
      assertThat(files.map(p -> p.getFileName().toString()).toList())
          .containsExactlyInAnyOrderElementsOf(
              referenced.stream().map(p -> Path.of(p).getFileName().toString()).toList());
    }
  }

  @Test
  void aConcurrentCommitToTheSameFragmentFailsTheStatementAndLosesNothing() throws Exception {
    Path dir = lanceWritten();
    String table = "lance.`" + dir + "`";
    CONCURRENT.set(
        () -> {
          try (Dataset ds = Dataset.open(dir.toString())) {
            ds.delete("id = 1"); // fragment 0, committed while the UPDATE runs
          }
        });
    assertThatThrownBy(
            () ->
                spark.sql(
                    "UPDATE " + table + " SET tenant_id = 777 WHERE id = 5 AND concurrently(id)"))
        .hasStackTraceContaining("Cannot commit update to")
        .hasStackTraceContaining(
            "a concurrent delete was committed as version 2 (transaction read from ")
        .hasStackTraceContaining("after this operation read version 1")
        .hasStackTraceContaining("Retry the operation on the latest version");
    assertThat(CONCURRENT.get()).isNull();
    assertThat(SparkProcedureTest.version(dir.toString())).isEqualTo(2);
    assertThat(lanceIds(dir))
        .isEqualTo(LongStream.range(0, 1000).filter(id -> id != 1).boxed().toList());
    assertThat(count("SELECT count(*) FROM " + table + " WHERE tenant_id = 777")).isZero();
    assertNoUnreferencedDataFiles(dir);

    // retried on the latest version, it commits
    spark.sql("UPDATE " + table + " SET tenant_id = 777 WHERE id = 5");
    assertThat(LanceOracle.longColumn(allocator, dir, "id", "tenant_id = 777")).containsExactly(5L);
  }

  @Test
  void aConcurrentAppendOrChangeElsewhereIsRebasedOver() throws Exception {
    Path dir = lanceWritten();
    String table = "lance.`" + dir + "`";
    // lance-core appends ids 1000..1099 while the UPDATE runs
    CONCURRENT.set(
        () ->
            LanceOracle.write(
                allocator, dir, 1000, 100, DIM, 3, WriteParams.WriteMode.APPEND, 500));
    spark.sql("UPDATE " + table + " SET tenant_id = 777 WHERE id = 6 AND concurrently(id)");
    assertThat(CONCURRENT.get()).isNull();
    assertThat(SparkProcedureTest.version(dir.toString())).isEqualTo(3);
    assertThat(lanceIds(dir)).isEqualTo(LongStream.range(0, 1100).boxed().toList());
    assertThat(LanceOracle.longColumn(allocator, dir, "id", "tenant_id = 777")).containsExactly(6L);

    // a delete in fragment 1 while a MERGE changes fragment 0
    CONCURRENT.set(
        () -> {
          try (Dataset ds = Dataset.open(dir.toString())) {
            ds.delete("id = 900");
          }
        });
    spark.sql(
        "MERGE INTO "
            + table
            + " t USING (SELECT 7L AS id) s ON t.id = s.id AND concurrently(s.id) "
            + "WHEN MATCHED THEN UPDATE SET t.tenant_id = 778");
    assertThat(CONCURRENT.get()).isNull();
    assertThat(SparkProcedureTest.version(dir.toString())).isEqualTo(5);
    assertThat(lanceIds(dir))
        .isEqualTo(LongStream.range(0, 1100).filter(id -> id != 900).boxed().toList());
    assertThat(LanceOracle.longColumn(allocator, dir, "id", "tenant_id = 778")).containsExactly(7L);
    assertNoUnreferencedDataFiles(dir);

    // UPDATE SET * from the source, and WHEN NOT MATCHED BY SOURCE ... UPDATE
    spark.sql(
        "MERGE INTO "
            + table
            + " t USING (SELECT id, 779 AS tenant_id, name, vector FROM "
            + table
            + " WHERE id = 8) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET * "
            + "WHEN NOT MATCHED BY SOURCE AND t.id = 9 THEN UPDATE SET t.tenant_id = 780");
    assertThat(LanceOracle.longColumn(allocator, dir, "id", "tenant_id = 779")).containsExactly(8L);
    assertThat(LanceOracle.longColumn(allocator, dir, "id", "tenant_id = 780")).containsExactly(9L);
    assertThat(operations(dir.toString())).last().isEqualTo("update");

    // a MERGE that only inserts is planned by Spark as an append
    spark.sql(
        "MERGE INTO "
            + table
            + " t USING (SELECT 2000L AS id, tenant_id, name, vector FROM "
            + table
            + " WHERE id = 0) s ON t.id = s.id WHEN NOT MATCHED THEN INSERT *");
    assertThat(operations(dir.toString())).last().isEqualTo("append");
    assertThat(LanceOracle.countRows(allocator, dir)).isEqualTo(1100);
  }
}
