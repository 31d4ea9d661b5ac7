package dev.lancelot.engine.index.scalar;

import static dev.lancelot.engine.index.scalar.BTreeTesting.indexAddresses;
import static dev.lancelot.engine.index.scalar.BTreeTesting.scanAddresses;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.internal.DatasetInternals;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.RoaringBitmap;

/**
 * Our BTree, built with small pages so values and duplicates span many pages, answers every
 * supported filter with exactly the rows our scan selects: NULL logic, NaN and -0.0 in total order,
 * byte-wise strings, integer coercions, NOT pushed through AND/OR.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BTreeRoundTripTest {
  private static final int ROWS = 3000;
  private static final List<String> INDEXED =
      List.of("i32", "i64", "u64", "f64", "f32", "s", "bin", "d", "ts", "flag");

  private BufferAllocator allocator;
  private Dataset dataset;

  @BeforeAll
  void setUp(@TempDir Path tmp) {
    allocator = new RootAllocator();
    dataset = BTreeTesting.write(allocator, tmp.resolve("ds"), 0, ROWS, 1000, WriteMode.CREATE);
    for (String c : INDEXED) {
      dataset = BTreeIndexBuilder.build(dataset, BTreeBuildParams.of(c).withPageSize(64));
    }
  }

  @AfterAll
  void tearDown() {
    dataset.close();
    allocator.close();
  }

  static final List<String> FILTERS =
      List.of(
          "i32 = 0",
          "i32 = 3",
          "i32 != 3",
          "i32 < 2",
          "i32 <= 2",
          "i32 > 40",
          "i32 >= 49",
          "i32 = 1000",
          "i32 < -5",
          "i32 BETWEEN 3 AND 7",
          "i32 BETWEEN 7 AND 3",
          "i32 NOT BETWEEN 1 AND 48",
          "i32 IN (1, 4, 9)",
          "i32 NOT IN (0, 1, 2)",
          "i32 IN (1, NULL)",
          "i32 NOT IN (1, NULL)",
          "i32 IS NULL",
          "i32 IS NOT NULL",
          "i32 = NULL",
          "i32 > 2.5",
          "i32 = 2.5",
          "i32 < 3000000000",
          "NOT (i32 = 3)",
          "NOT (i32 > 3 AND i32 < 10)",
          "NOT (i32 IS NULL OR i32 = 0)",
          "i32 = 3 OR i32 IS NULL",
          "i32 = 3 OR TRUE",
          "i32 = 3 AND FALSE",
          "NOT (i32 = 3 AND FALSE)",
          "NOT i32 IN (0, 1)",
          "i64 = -9223372036854775808",
          "i64 >= 9223372036854775807",
          "i64 < 0",
          "i64 BETWEEN -10 AND 10",
          "u64 > 9223372036854775807",
          "u64 >= 18446744073709551610",
          "u64 < 5",
          "u64 > -1",
          "u64 NOT IN (1, 2)",
          "f64 = 0",
          "f64 = -0.0",
          "f64 < 0",
          "f64 > 1e308",
          "f64 = DOUBLE 'NaN'",
          "f64 >= DOUBLE 'Infinity'",
          "f64 < DOUBLE '-Infinity'",
          "f64 <= DOUBLE '-Infinity'",
          "f64 BETWEEN -1 AND 1",
          "f64 != 0.5",
          "f64 IN (0.25, -0.5, 2)",
          "NOT (f64 < 1)",
          "f64 IS NULL",
          "f32 = 0.1",
          "f32 != 0.1",
          "f32 < 0",
          "f32 > 1",
          "f32 IN (1.5, -2.25)",
          "NOT (f32 = 0.1)",
          "s = 'a'",
          "s = ''",
          "s != 'a'",
          "s < 'b'",
          "s >= 'user-1'",
          "s > 'zz'",
          "s <= 'B'",
          "s BETWEEN 'a' AND 'b'",
          "s IN ('a1', 'é', 'zz3')",
          "s NOT IN ('a', 'b')",
          "s IS NULL",
          "s IS NOT NULL",
          "NOT (s >= 'b')",
          "s < 'é' AND s > 'a'",
          "s = 'nothing'",
          "bin = X'00FF'",
          "bin < X'01'",
          "bin >= X'0201'",
          "bin IN (X'03', X'0001')",
          "bin IS NULL",
          "d = DATE '2022-01-10'",
          "d < DATE '2022-01-12'",
          "d BETWEEN DATE '2022-01-03' AND DATE '2022-01-20'",
          "d > TIMESTAMP '2022-01-20 12:00:00'",
          "d IS NULL",
          "ts >= TIMESTAMP '2023-11-14 22:13:25'",
          "ts = TIMESTAMP '2023-11-14 22:13:20'",
          "flag",
          "NOT flag",
          "flag = false",
          "flag IN (true, NULL)",
          "NOT (flag IN (true, NULL))",
          "flag IS NULL",
          "flag != true",
          "i32 = 3 AND s IS NOT NULL",
          "i32 < 5 OR s = 'a'",
          "(i32 < 5 OR f64 > 0) AND NOT (s = 'ab' OR d IS NULL)",
          "i32 IN (0, 1) AND flag AND u64 < 10",
          "NOT (i32 = 0 OR s < 'b') OR f32 = 1.5");

  @Test
  void everyFilterMatchesTheScan() {
    int partial = 0;
    for (String filter : FILTERS) {
      TreeSet<Long> expected = scanAddresses(dataset, filter);
      assertThat(indexAddresses(dataset, filter)).as(filter).isEqualTo(expected);
      partial += expected.isEmpty() || expected.size() == ROWS ? 0 : 1;
    }
    // the list is not vacuous: most filters select some rows but not all
    assertThat(partial).isGreaterThan(FILTERS.size() * 3 / 4);
  }

  @Test
  void edgeCasesSelectWhatTheyShould() {
    assertThat(indexAddresses(dataset, "i32 = 1000")).isEmpty();
    assertThat(indexAddresses(dataset, "i32 > 3 OR TRUE")).hasSize(ROWS);
    assertThat(indexAddresses(dataset, "i32 IS NULL OR i32 IS NOT NULL")).hasSize(ROWS);
    assertThat(indexAddresses(dataset, "f64 = DOUBLE 'NaN'")).isNotEmpty();
    // tenant 0 is frequent: its rows span several 64-row pages
    assertThat(indexAddresses(dataset, "i32 = 0")).hasSizeGreaterThan(3 * 64);
  }

  @Test
  void readsOnlyPagesThatCanMatch() {
    ScalarIndexResult point = ScalarIndexQuery.plan(dataset, "i32 = 40").evaluate();
    assertThat(point.pagesRead()).isBetween(1, 3);
    assertThat(point.pagesTotal()).isEqualTo((ROWS + 63) / 64);
    ScalarIndexResult nulls = ScalarIndexQuery.plan(dataset, "s IS NULL").evaluate();
    assertThat(nulls.pagesRead()).isLessThanOrEqualTo(ROWS / 9 / 64 + 2);
    assertThat(ScalarIndexQuery.plan(dataset, "i32 = 1000").evaluate().pagesRead()).isZero();
  }

  @Test
  void readsTheLookupAndOnlyTheMatchingPagesOfDefaultSize(@TempDir Path dir)
      throws java.io.IOException {
    try (Dataset base =
        BTreeTesting.write(allocator, dir.resolve("ds"), 0, 40_000, 20_000, WriteMode.CREATE)) {
      Dataset v = BTreeIndexBuilder.build(base, BTreeBuildParams.of("i64"));
      Path index = dir.resolve("ds").resolve(v.indexes().segments("i64_idx").get(0).directory());
      long pageData = java.nio.file.Files.size(index.resolve("page_data.lance"));
      DatasetInternals.context(v).io().stats().reset();
      ScalarIndexResult point = ScalarIndexQuery.plan(v, "i64 = 5").evaluate();
      assertThat(List.of(point.pagesRead(), point.pagesTotal())).containsExactly(1, 10);
      // A point lookup reads the lookup and one page's chunks, not the page file: the file's
      // bit-packed mini-block chunks (up to 4,096 values each) seldom line up with the index's
      // 4,096-row pages, so one index page costs up to a few chunks of each column.
      assertThat(DatasetInternals.context(v).io().stats().bytesRead()).isLessThan(pageData / 2);
      assertThat(BTreeTesting.addresses(point)).isEqualTo(scanAddresses(v, "i64 = 5"));
      // both halves of a range on one column prune together: one page, not the pages of either half
      ScalarIndexResult range =
          ScalarIndexQuery.plan(v, "i64 BETWEEN 3 AND 7 OR i64 = 5").evaluate();
      assertThat(range.pagesRead()).isEqualTo(1);
      assertThat(BTreeTesting.addresses(range)).isEqualTo(scanAddresses(v, "i64 BETWEEN 3 AND 7"));
      DatasetInternals.context(v).io().stats().reset();
      assertThat(ScalarIndexQuery.plan(v, "i64 IS NULL").evaluate().pagesRead()).isZero();
      assertThat(DatasetInternals.context(v).io().stats().bytesRead())
          .isLessThan(4096); // the lookup file only
    }
  }

  @Test
  void deletedRowsAreReportedUntilRemoved(@TempDir Path dir) {
    try (Dataset base =
        BTreeTesting.write(allocator, dir.resolve("ds"), 0, 1200, 500, WriteMode.CREATE)) {
      Dataset indexed = BTreeIndexBuilder.build(base, BTreeBuildParams.of("i32").withPageSize(100));
      Dataset deleted = indexed.delete("i32 = 0 OR i32 = 5");
      ScalarIndexResult raw = ScalarIndexQuery.plan(deleted, "i32 <= 5").evaluate();
      TreeSet<Long> scanned = scanAddresses(deleted, "i32 <= 5");
      assertThat(BTreeTesting.addresses(raw))
          .containsAll(scanned)
          .hasSizeGreaterThan(scanned.size());
      assertThat(BTreeTesting.addresses(raw.withoutDeletedRows(deleted))).isEqualTo(scanned);
      long deletedRow =
          BTreeTesting.addresses(raw).stream()
              .filter(a -> !scanned.contains(a))
              .findFirst()
              .orElseThrow();
      assertThat(raw.contains(deletedRow)).isTrue();
      assertThat(raw.withoutDeletedRows(deleted).contains(deletedRow)).isFalse();
      assertThat(raw.withoutDeletedRows(deleted).contains(scanned.first())).isTrue();
      // a build after the delete leaves the deleted rows out of the index itself
      Dataset rebuilt =
          BTreeIndexBuilder.build(deleted, BTreeBuildParams.of("i32").withReplace(true));
      assertThat(BTreeTesting.addresses(ScalarIndexQuery.plan(rebuilt, "i32 <= 5").evaluate()))
          .isEqualTo(scanned);
      assertThat(rebuilt.indexes().segments("i32_idx")).hasSize(1);
    }
  }

  @Test
  void aBuildRacingAnAppendCoversOnlyTheFragmentsItScanned(@TempDir Path dir) {
    try (Dataset base =
        BTreeTesting.write(allocator, dir.resolve("ds"), 0, 400, 400, WriteMode.CREATE)) {
      Dataset appended =
          BTreeTesting.write(allocator, dir.resolve("ds"), 400, 400, 400, WriteMode.APPEND);
      Dataset built =
          BTreeIndexBuilder.build(base, BTreeBuildParams.of("i32")); // planned on version 1
      assertThat(built.version()).isEqualTo(appended.version() + 1);
      assertThat(built.indexes().segments("i32_idx").get(0).datasetVersion())
          .isEqualTo(base.version());
      ScalarIndexQuery q = ScalarIndexQuery.plan(built, "i32 = 2");
      assertThat(q.uncoveredFragments()).containsExactly(1L);
      TreeSet<Long> inFirst = new TreeSet<>(scanAddresses(built, "i32 = 2").headSet(1L << 32));
      assertThat(BTreeTesting.addresses(q.evaluate())).isEqualTo(inFirst);
      appended.close();
    }
  }

  @Test
  void appendedFragmentsAreUncovered(@TempDir Path dir) {
    try (Dataset base =
        BTreeTesting.write(allocator, dir.resolve("ds"), 0, 1000, 500, WriteMode.CREATE)) {
      Dataset indexed = BTreeIndexBuilder.build(base, BTreeBuildParams.of("i32"));
      indexed = BTreeIndexBuilder.build(indexed, BTreeBuildParams.of("s"));
      Dataset appended =
          BTreeTesting.write(allocator, dir.resolve("ds"), 1000, 600, 500, WriteMode.APPEND);
      ScalarIndexQuery q = ScalarIndexQuery.plan(appended, "i32 = 3 AND s >= 'b'");
      assertThat(q.isExact()).isTrue();
      assertThat(q.coveredFragments()).isEqualTo(RoaringBitmap.bitmapOf(0, 1));
      assertThat(q.uncoveredFragments()).containsExactly(2L, 3L);
      assertThat(q.covers(RoaringBitmap.bitmapOf(0, 1))).isTrue();
      assertThat(q.covers(RoaringBitmap.bitmapOf(0, 2))).isFalse();
      assertThat(q.explain()).contains("uncovered=[2, 3]").contains("indexes=[i32_idx, s_idx]");
      ScalarIndexResult r = q.evaluate();
      TreeSet<Long> expected = new TreeSet<>();
      for (long a : scanAddresses(appended, "i32 = 3 AND s >= 'b'")) {
        if ((a >>> 32) < 2) {
          expected.add(a);
        }
      }
      assertThat(BTreeTesting.addresses(r)).isEqualTo(expected);
      // an index rebuilt after the append covers everything again; the other one still does not
      Dataset reindexed =
          BTreeIndexBuilder.build(appended, BTreeBuildParams.of("i32").withReplace(true));
      assertThat(ScalarIndexQuery.plan(reindexed, "i32 = 3").uncoveredFragments()).isEmpty();
      assertThat(ScalarIndexQuery.plan(reindexed, "i32 = 3 OR s = 'a'").coveredFragments())
          .isEqualTo(RoaringBitmap.bitmapOf(0, 1));
    }
  }
}
