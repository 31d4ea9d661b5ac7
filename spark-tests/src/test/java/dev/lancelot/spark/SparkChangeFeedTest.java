package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.CompactionOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.ReadOptions;
import org.lance.Ref;

/**
 * The change feed (semantics S12): the rows each version inserted and deleted are those that differ
 * between lance-core's reads of the version and of the one before it; compaction changes nothing.
 */
class SparkChangeFeedTest extends SharedSpark {

  /** The rows ("id:name") of version {@code v} as lance-core reads them, with multiplicity. */
  static Map<String, Integer> lanceRows(String uri, long v) throws Exception {
    Map<String, Integer> out = new HashMap<>();
    try (org.lance.Dataset lance =
            org.lance.Dataset.open(allocator, uri, new ReadOptions.Builder().build());
        org.lance.Dataset at = lance.checkout(Ref.ofMain(v));
        org.lance.ipc.LanceScanner scanner =
            at.newScan(
                new org.lance.ipc.ScanOptions.Builder().columns(List.of("id", "name")).build());
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        BigIntVector id = (BigIntVector) root.getVector("id");
        VarCharVector name = (VarCharVector) root.getVector("name");
        for (int i = 0; i < root.getRowCount(); i++) {
          out.merge(id.get(i) + ":" + name.getObject(i), 1, Integer::sum);
        }
      }
    }
    return out;
  }

  /** What lance-core's reads say version {@code v} changed: "insert id:name v" / "delete ...". */
  static List<String> lanceChanges(String uri, long v) throws Exception {
    Map<String, Integer> before = v == 1 ? Map.of() : lanceRows(uri, v - 1);
    Map<String, Integer> after = lanceRows(uri, v);
    List<String> out = new ArrayList<>();
    after.forEach(
        (row, n) -> {
          for (int i = before.getOrDefault(row, 0); i < n; i++) {
            out.add("insert " + row + " " + v);
          }
        });
    before.forEach(
        (row, n) -> {
          for (int i = after.getOrDefault(row, 0); i < n; i++) {
            out.add("delete " + row + " " + v);
          }
        });
    return out;
  }

  static List<String> changes(String table, String... options) {
    var reader = spark.read();
    for (int i = 0; i < options.length; i += 2) {
      reader = reader.option(options[i], options[i + 1]);
    }
    List<String> out = new ArrayList<>();
    for (Row r : reader.table(table).collectAsList()) {
      out.add(
          r.getString(r.fieldIndex("_change_type"))
              + " "
              + r.getLong(r.fieldIndex("id"))
              + ":"
              + r.getString(r.fieldIndex("name"))
              + " "
              + r.getLong(r.fieldIndex("_commit_version")));
    }
    return out;
  }

  static void insert(String uri, long from, long to) {
    spark
        .range(from, to)
        .selectExpr("id", "concat('n', cast(id as string)) as name")
        .coalesce(1)
        .write()
        .format("lance")
        .option("max_rows_per_file", 20)
        .mode("append")
        .save(uri);
  }

  @Test
  void theChangesOfEachVersionAreWhatLanceReadsDifferBy(@TempDir Path dir) throws Exception {
    String uri = dir.resolve("t.lance").toString();
    String table = "lance.`" + uri + "`";
    insert(uri, 0, 50); // 1: creates the table
    insert(uri, 50, 80); // 2
    spark.sql("DELETE FROM " + table + " WHERE id < 10 OR id = 45"); // 3
    spark.sql("UPDATE " + table + " SET name = 'x' WHERE id IN (60, 61)"); // 4
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(uri)) {
      assertThat(ds.compact(CompactionOptions.defaults()).toString()).isNotEmpty(); // 5
    }
    insert(uri, 80, 90); // 6
    spark.sql("DELETE FROM " + table + " WHERE id >= 85"); // 7
    spark.sql("DELETE FROM " + table + " WHERE id >= 80"); // 8: the rest of version 6's fragment
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(uri)) {
      assertThat(ds.version()).isEqualTo(8);
      try (dev.lancelot.engine.Dataset v5 = ds.checkout(5);
          dev.lancelot.engine.Dataset v7 = ds.checkout(7)) {
        assertThat(v5.operation()).isEqualTo("rewrite");
        assertThat(ds.fragments()).hasSize(v7.fragments().size() - 1); // the fragment is gone
      }
    }
    List<String> expected = new ArrayList<>();
    for (long v = 1; v <= 8; v++) {
      expected.addAll(lanceChanges(uri, v));
    }
    assertThat(lanceChanges(uri, 5)).isEmpty();
    assertThat(expected).contains("delete 60:n60 4", "insert 60:x 4", "delete 45:n45 3");
    String changes = "lance.`" + uri + "`.changes";
    assertThat(changes(changes, "startingVersion", "1"))
        .containsExactlyInAnyOrderElementsOf(expected);

    List<String> threeToFour = new ArrayList<>(lanceChanges(uri, 3));
    threeToFour.addAll(lanceChanges(uri, 4));
    assertThat(changes(changes, "startingVersion", "3", "endingVersion", "4"))
        .containsExactlyInAnyOrderElementsOf(threeToFour);
    assertThat(changes(changes, "startingVersion", "5", "endingVersion", "5")).isEmpty();

    assertThatThrownBy(() -> changes(changes))
        .hasMessageContaining("without option startingVersion");
    assertThat(changes(changes, "startingVersion", "8"))
        .containsExactlyInAnyOrderElementsOf(lanceChanges(uri, 8))
        .hasSize(5);
    assertThat(
            spark
                .sql(
                    "SELECT count(*) FROM "
                        + changes
                        + " WITH ('startingVersion' = '8') WHERE _change_type = 'delete'")
                .first()
                .getLong(0))
        .isEqualTo(5);
    assertThatThrownBy(() -> changes(changes, "startingVersion", "9"))
        .hasMessageContaining("expected a version from 1 to 8");
    assertThatThrownBy(() -> changes(changes, "startingVersion", "4", "endingVersion", "2"))
        .hasMessageContaining("endingVersion is before startingVersion");

    spark.sql("ALTER TABLE " + table + " ADD COLUMNS (extra INT)"); // 9
    assertThatThrownBy(() -> changes(changes, "startingVersion", "8"))
        .hasMessageContaining("across version 9")
        .hasMessageContaining("changes columns, not rows");
    // the feed has the table's current columns, which the versions before 9 do not have (the
    // deletes of version 7 are read at version 6)
    assertThatThrownBy(() -> changes(changes, "startingVersion", "7", "endingVersion", "8"))
        .hasMessageContaining("at version 6 with the table's current columns [id, name, extra]");
  }
}
