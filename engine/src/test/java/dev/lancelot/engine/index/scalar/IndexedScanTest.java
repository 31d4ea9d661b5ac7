package dev.lancelot.engine.index.scalar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.ScanIndexUse;
import dev.lancelot.engine.ScanTask;
import dev.lancelot.engine.Scanner;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.distributed.ScanPlan;
import dev.lancelot.engine.io.ReadCounters;
import dev.lancelot.engine.testing.ArrowStreams;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Filtered scans read only the rows BTree indexes select (decision D52) and return exactly what a
 * scan without indexes returns: same rows, same order, same values, with deletions after the build,
 * an appended fragment no index covers, filters an index answers only in part, stable row ids, and
 * distributed tasks.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IndexedScanTest {
  private static final int FRAGMENT_ROWS = 3000;
  private BufferAllocator allocator;

  /** Filters on the indexed columns i32, s, f64, d, flag; i64 and u64 have no index. */
  static final List<String> FILTERS =
      List.of(
          "i32 = 7",
          "i32 = 0",
          "i32 != 3",
          "i32 < 2",
          "i32 >= 45",
          "i32 BETWEEN 10 AND 12",
          "i32 IN (1, 5, 40)",
          "i32 NOT IN (0, 1, 2)",
          "i32 IN (3, NULL)",
          "i32 NOT IN (3, NULL)",
          "i32 IS NULL",
          "i32 IS NOT NULL",
          "NOT (i32 < 30)",
          "i32 = 3 OR i32 = 44",
          "i32 = 1000",
          "i32 = NULL",
          "s = 'ab1'",
          "s < 'b'",
          "s >= 'zz'",
          "s IN ('a', 'é3', 'user-10')",
          "s IS NULL",
          "NOT (s > 'b' OR s IS NULL)",
          "f64 = 0.0",
          "f64 > 3.5",
          "f64 < -1e308",
          "f64 IS NULL",
          "d = DATE '2022-01-10'",
          "d BETWEEN DATE '2022-01-01' AND DATE '2022-01-03'",
          "flag = true",
          "flag IS NULL",
          "NOT flag",
          "i32 = 2 AND s IS NULL",
          "i32 < 5 OR s = 'abc2'",
          "NOT (i32 = 0 OR s IS NULL)",
          "i32 IN (4, 5) AND s >= 'user-1'",
          // partly answered: the unindexed or unanswerable parts are rechecked
          "i32 = 7 AND i64 > 0",
          "i32 < 3 AND u64 IS NULL",
          "(i32 = 1 OR i32 = 2) AND s LIKE 'a%'",
          "i32 = 9 AND i64 + 1 > 0",
          "NOT (i32 > 2 OR i64 < 0)",
          "(i32 = 5 AND i64 > 0) OR (s = 'b' AND u64 > 3)",
          // answered by no index part: read in full
          "i32 = 7 OR i64 > 0",
          "i64 < 0",
          "s LIKE '%b%'");

  @BeforeAll
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  void tearDown() {
    allocator.close();
  }

  /**
   * Three indexed fragments, rows deleted before and after the builds, and an appended fragment.
   */
  private Dataset indexedTable(Path dir) {
    Dataset ds = write(dir, 0, 3 * FRAGMENT_ROWS, WriteMode.CREATE);
    ds = ds.delete("i64 % 7 = 1");
    for (String column : List.of("i32", "s", "f64", "d", "flag")) {
      ds = BTreeIndexBuilder.build(ds, BTreeBuildParams.of(column));
    }
    ds = ds.delete("i64 % 5 = 2");
    return write(dir, 3 * FRAGMENT_ROWS, 1000, WriteMode.APPEND);
  }

  private Dataset write(Path dir, int first, int rows, WriteMode mode) {
    try (VectorSchemaRoot batch = BTreeTesting.mixed(allocator, first, rows, 5);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch))) {
      return Dataset.write(
          dir.toString(), reader, WriteOptions.of(mode).withMaxRowsPerFile(FRAGMENT_ROWS));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every returned row, in order: row id, row address and every column but the vector. */
  private static List<String> rows(Scanner scan) {
    List<String> out = new ArrayList<>();
    try (CloseableIterator<VectorSchemaRoot> it =
        scan.columns("i32", "i64", "u64", "f64", "s", "bin", "d", "flag")
            .withRowId(true)
            .withRowAddress(true)
            .batchSize(700)
            .batches()) {
      while (it.hasNext()) {
        VectorSchemaRoot b = it.next();
        for (int r = 0; r < b.getRowCount(); r++) {
          StringBuilder sb = new StringBuilder();
          for (var v : b.getFieldVectors()) {
            Object o = v.getObject(r);
            sb.append(o instanceof byte[] bytes ? java.util.Arrays.toString(bytes) : o).append('|');
          }
          out.add(sb.toString());
        }
      }
    }
    return out;
  }

  private static void assertSameAsFullScan(Dataset ds) {
    int used = 0;
    for (String filter : FILTERS) {
      Scanner indexed = ds.newScan().filter(filter);
      List<String> expected = rows(ds.newScan().filter(filter).useScalarIndex(false));
      assertThat(rows(indexed)).as("indexed scan of %s", filter).isEqualTo(expected);
      assertThat(indexed.countRows()).as("count of %s", filter).isEqualTo(expected.size());
      if (indexed.indexUse().used()) {
        used++;
      }
    }
    assertThat(used).isGreaterThanOrEqualTo(FILTERS.size() - 4);
  }

  @Test
  void indexedScansReturnWhatFullScansReturn(@TempDir Path dir) {
    Dataset ds = indexedTable(dir);
    assertSameAsFullScan(ds);

    ScanIndexUse exact = ds.newScan().filter("i32 IN (1, 5, 40)").indexUse();
    assertThat(exact.used()).isTrue();
    assertThat(exact.exact()).isTrue();
    assertThat(exact.indexes()).containsExactly("i32_idx");
    assertThat(exact.indexLookups()).isEqualTo(1);
    assertThat(exact.fragmentsReadInFull()).as("the appended fragment").isEqualTo(1);

    ScanIndexUse partial = ds.newScan().filter("i32 = 7 AND i64 > 0").indexUse();
    assertThat(partial.used()).isTrue();
    assertThat(partial.exact()).isFalse();
    assertThat(partial.explain()).contains("i32_idx", "column i64 has no BTree index");

    ScanIndexUse none = ds.newScan().filter("i32 = 7 OR i64 > 0").indexUse();
    assertThat(none.used()).isFalse();
    assertThat(none.explain()).contains("no part of the filter is answered by an index");
    assertThat(ds.newScan().filter("i32 = 7").useScalarIndex(false).indexUse().used()).isFalse();
    ScanIndexUse appendedOnly = ds.newScan().filter("i32 = 7").fragments(List.of(3L)).indexUse();
    assertThat(appendedOnly.used()).isFalse();
    assertThat(appendedOnly.explain()).contains("cover none of the scanned fragments");
    assertThat(ds.newScan().filter("i32 = 7").explain())
        .contains("Scan: ", "filter=i32 = 7", "Index: ", "i32_idx", "index lookups");
  }

  @Test
  void selectiveScansDecodeFewerRowsAndSkipFragments(@TempDir Path dir) {
    Dataset ds = indexedTable(dir);
    String filter = "i32 = 40";
    ReadCounters.Reading start = ReadCounters.now();
    List<String> indexed = rows(ds.newScan().filter(filter));
    long indexedRows = start.since().rowsScanned();
    start = ReadCounters.now();
    List<String> full = rows(ds.newScan().filter(filter).useScalarIndex(false));
    long fullRows = start.since().rowsScanned();
    assertThat(indexed).isEqualTo(full).isNotEmpty();
    assertThat(fullRows).isEqualTo(3L * FRAGMENT_ROWS + 1000);
    // the matching rows of the indexed fragments, and the whole appended fragment
    assertThat(indexedRows).isLessThan(1000 + 100L).isGreaterThanOrEqualTo(1000L + 1);

    // a value no row holds: the indexed fragments are skipped, the appended one is read
    Scanner nothing = ds.newScan().filter("i32 = 1000");
    assertThat(nothing.planTasks(Long.MAX_VALUE))
        .extracting(ScanTask::fragmentId)
        .containsExactly(3L);
    assertThat(nothing.indexUse().fragmentsSkipped()).isEqualTo(3);
  }

  @Test
  void distributedTasksCarryTheirSelection(@TempDir Path dir) {
    Dataset ds = indexedTable(dir);
    String filter = "i32 IN (30, 31) OR s = 'abc'";
    Scanner scan = ds.newScan().columns("i32", "s").filter(filter).withRowAddress(true);
    ScanPlan plan = ScanPlan.plan(scan, 1000);
    assertThat(plan.indexUse().used()).isTrue();
    assertThat(plan.explain()).contains("i32_idx", "s_idx");
    assertThat(plan.tasks()).anyMatch(ScanTask::hasSelection);
    assertThat(plan.tasks()).anyMatch(t -> !t.hasSelection()); // the appended fragment
    assertThat(plan.tasks().size()).isLessThanOrEqualTo(10);

    ScanPlan worker = ScanPlan.fromBytes(plan.toBytes());
    Dataset workerDs = Dataset.open(dir.toString());
    List<Long> got = new ArrayList<>();
    for (ScanTask task : plan.tasks()) {
      ScanTask received = ScanPlan.taskFromBytes(ScanPlan.taskToBytes(task));
      assertThat(received).isEqualTo(task);
      try (BufferAllocator a = new RootAllocator();
          CloseableIterator<VectorSchemaRoot> it = worker.execute(workerDs, received, a)) {
        while (it.hasNext()) {
          VectorSchemaRoot b = it.next();
          for (int r = 0; r < b.getRowCount(); r++) {
            got.add((Long) b.getVector("_rowaddr").getObject(r));
          }
        }
      }
    }
    List<Long> expected = new ArrayList<>();
    try (CloseableIterator<VectorSchemaRoot> it = scan.useScalarIndex(false).batches()) {
      while (it.hasNext()) {
        VectorSchemaRoot b = it.next();
        for (int r = 0; r < b.getRowCount(); r++) {
          expected.add((Long) b.getVector("_rowaddr").getObject(r));
        }
      }
    }
    assertThat(got).isEqualTo(expected).isNotEmpty();

    byte[] bytes = ScanPlan.taskToBytes(plan.tasks().get(0));
    assertThatThrownBy(
            () -> ScanPlan.taskFromBytes(java.util.Arrays.copyOf(bytes, bytes.length + 3)))
        .hasMessageContaining("Cannot read a scan task");
  }

  @Test
  void deletesByIndexedFilterDeleteWhatAFullScanFinds(@TempDir Path dir) {
    Dataset ds = indexedTable(dir);
    String filter = "i32 IN (2, 3) AND i64 > 0";
    long before = ds.countRows();
    long matching = ds.newScan().filter(filter).useScalarIndex(false).countRows();
    List<String> kept =
        rows(
            ds.newScan()
                .filter("NOT (" + filter + ") OR i32 IS NULL OR i64 IS NULL")
                .useScalarIndex(false));
    Dataset after = ds.delete(filter);
    assertThat(matching).isPositive();
    assertThat(after.countRows()).isEqualTo(before - matching);
    assertThat(rows(after.newScan().useScalarIndex(false))).isEqualTo(kept);
  }

  @Test
  void aCorruptIndexFileFailsTheScanNamingIt(@TempDir Path dir) throws IOException {
    Dataset ds = indexedTable(dir);
    Path pageData;
    try (Stream<Path> files = Files.walk(dir.resolve("_indices"))) {
      List<Path> all =
          files.filter(p -> p.getFileName().toString().equals("page_data.lance")).toList();
      String uuid = ds.indexes().segments("i32_idx").get(0).uuid().toString();
      pageData = all.stream().filter(p -> p.toString().contains(uuid)).findFirst().orElseThrow();
    }
    byte[] bytes = Files.readAllBytes(pageData);
    for (int i = 0; i < 64 && i < bytes.length; i++) {
      bytes[i] ^= (byte) 0x5A;
    }
    Files.write(pageData, java.util.Arrays.copyOf(bytes, bytes.length - 40));
    Dataset reopened = Dataset.open(dir.toString());
    assertThatThrownBy(() -> rows(reopened.newScan().filter("i32 = 7")))
        .isInstanceOf(ScalarIndexException.class)
        .hasMessageContaining("page_data.lance");
    assertThat(rows(reopened.newScan().filter("i32 = 7").useScalarIndex(false))).isNotEmpty();
  }
}
