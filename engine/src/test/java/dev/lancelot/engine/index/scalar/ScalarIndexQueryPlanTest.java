package dev.lancelot.engine.index.scalar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.expr.FilterBindException;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.RoaringBitmap;

/**
 * When BTrees answer a filter exactly, which indexes they use, and what explain says when they
 * cannot.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ScalarIndexQueryPlanTest {
  private BufferAllocator allocator;
  private Dataset dataset;

  @BeforeAll
  void setUp(@TempDir Path tmp) {
    allocator = new RootAllocator();
    dataset = BTreeTesting.write(allocator, tmp.resolve("ds"), 0, 600, 300, WriteMode.CREATE);
    dataset = BTreeIndexBuilder.build(dataset, BTreeBuildParams.of("i32"));
    dataset = BTreeIndexBuilder.build(dataset, BTreeBuildParams.of("s"));
  }

  @AfterAll
  void tearDown() {
    dataset.close();
    allocator.close();
  }

  private String reason(String filter) {
    ScalarIndexQuery q = ScalarIndexQuery.plan(dataset, filter);
    assertThat(q.isExact()).as(filter).isFalse();
    assertThat(q.coveredFragments().isEmpty()).isTrue();
    assertThat(q.uncoveredFragments()).containsExactly(0L, 1L);
    return q.reason().orElseThrow();
  }

  @Test
  void filtersBTreesCannotAnswerExactlySayWhy() {
    assertThat(reason("s LIKE 'a%'"))
        .isEqualTo("LIKE on column s is not answered by a BTree index");
    assertThat(reason("i32 = 1 AND s LIKE 'a%'")).contains("LIKE on column s");
    assertThat(reason("i64 = 5")).isEqualTo("column i64 has no BTree index");
    assertThat(reason("i32 = 1 OR i64 = 5")).isEqualTo("column i64 has no BTree index");
    assertThat(reason("vec IS NULL"))
        .startsWith("column vec has type FixedSizeList(2)")
        .endsWith("which a BTree index cannot hold");
    assertThat(reason("TRUE")).isEqualTo("the filter reads no column");
    assertThat(reason("i32 % 2 = 1"))
        .isEqualTo("the filter part i32 % 2 = 1 has no index equivalent");
    assertThat(reason("i32 = 1 AND i32 < i64"))
        .isEqualTo("the filter part i32 < i64 has no index equivalent");
    assertThat(reason("lower(s) = 'a'"))
        .isEqualTo("the filter part lower(s) = 'a' has no index equivalent");
    ScalarIndexQuery q = ScalarIndexQuery.plan(dataset, "i64 = 5");
    assertThat(q.explain())
        .isEqualTo(
            "ScalarIndexQuery: filter=i64 = 5, exact=false, reason=column i64 has no BTree index");
    assertThat(q.covers(new RoaringBitmap())).isFalse();
    assertThatThrownBy(q::evaluate)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(
            "Cannot evaluate i64 = 5 with scalar indexes: column i64 has no BTree index");
  }

  @Test
  void explainShowsTheLookupWithNotsPushedDown() {
    ScalarIndexQuery q =
        ScalarIndexQuery.plan(dataset, "i32 IN (3, 1) AND NOT (s >= 'b' OR s IS NULL)");
    assertThat(q.isExact()).isTrue();
    assertThat(q.indexes()).containsExactly("i32_idx", "s_idx");
    assertThat(q.explain())
        .isEqualTo(
            "ScalarIndexQuery: filter=i32 IN (3, 1) AND NOT (s >= 'b' OR s IS NULL), "
                + "exact=true, indexes=[i32_idx, s_idx], lookup=i32 key in {1, 3} AND s bytes in (unbounded, 'b') and "
                + "is not null, fragments={0,1}");
    assertThat(
            ScalarIndexQuery.plan(dataset, "i32 BETWEEN 2 AND 4 OR i32 = 9 OR s = 'a'").explain())
        .contains(
            "lookup=i32 ((key in [2, 2147483647] and key in [-2147483648, 4]) or key in [9, 9]) OR s bytes in "
                + "['a', 'a']");
    assertThat(ScalarIndexQuery.plan(dataset, "i32 > 2.5 OR i32 = NULL").explain())
        .contains("lookup=i32 key in [3, 2147483647]");
    assertThat(ScalarIndexQuery.plan(dataset, "NOT (i32 IN (1, NULL))").explain())
        .contains("lookup=no rows");
    assertThat(ScalarIndexQuery.plan(dataset, "i32 = 1 OR TRUE").explain())
        .contains("lookup=all rows");
    // written value-first or in parentheses, a column against a literal is still the indexable form
    assertThat(ScalarIndexQuery.plan(dataset, "(3) < (i32) AND i32 IN (4, 5)").explain())
        .isEqualTo(ScalarIndexQuery.plan(dataset, "i32 > 3 AND i32 IN (4, 5)").explain());
  }

  @Test
  void unknownColumnsAreRefusedAsAScanWouldRefuseThem() {
    assertThatThrownBy(() -> ScalarIndexQuery.plan(dataset, "nope = 1"))
        .isInstanceOf(FilterBindException.class)
        .hasMessageContaining("the schema has no column nope");
  }

  @Test
  void theBTreeCoveringMostFragmentsIsChosen(@TempDir Path tmp) {
    try (Dataset base =
        BTreeTesting.write(allocator, tmp.resolve("ds"), 0, 400, 200, WriteMode.CREATE)) {
      Dataset v = BTreeIndexBuilder.build(base, BTreeBuildParams.of("i32").withName("a_old"));
      v = BTreeTesting.write(allocator, tmp.resolve("ds"), 400, 200, 200, WriteMode.APPEND);
      v = BTreeIndexBuilder.build(v, BTreeBuildParams.of("i32").withName("z_new"));
      ScalarIndexQuery q = ScalarIndexQuery.plan(v, "i32 = 4");
      assertThat(q.indexes()).containsExactly("z_new");
      assertThat(q.uncoveredFragments()).isEmpty();
      assertThat(BTreeTesting.addresses(q.evaluate()))
          .isEqualTo(BTreeTesting.scanAddresses(v, "i32 = 4"));
      assertThat(v.indexes().names()).containsExactlyInAnyOrder("a_old", "z_new");
    }
  }

  @Test
  void anEmptyIndexAnswersWithNoRows(@TempDir Path tmp) {
    try (Dataset base =
        BTreeTesting.write(allocator, tmp.resolve("ds"), 0, 100, 100, WriteMode.CREATE)) {
      Dataset empty = base.delete("i64 < 0 OR i64 >= 0");
      assertThat(empty.countRows()).isZero();
      Dataset v = BTreeIndexBuilder.build(empty, BTreeBuildParams.of("s"));
      BTreeIndexStatistics stats = BTreeIndexStatistics.of(v, "s_idx");
      assertThat(stats.rowsIndexed()).isZero();
      assertThat(stats.pages()).isZero();
      ScalarIndexQuery q = ScalarIndexQuery.plan(v, "s IS NULL OR s >= ''");
      assertThat(q.isExact()).isTrue();
      assertThat(q.evaluate().count()).isZero();
      assertThat(List.of(q.evaluate().pagesRead(), q.evaluate().pagesTotal()))
          .containsExactly(0, 0);
    }
  }

  @Test
  void statisticsForInfo() {
    BTreeIndexStatistics stats = BTreeIndexStatistics.of(dataset, "s_idx");
    assertThat(stats.column()).isEqualTo("s");
    assertThat(stats.segments()).isEqualTo(1);
    assertThat(stats.rowsIndexed()).isEqualTo(600);
    assertThat(stats.nullRows()).isEqualTo(dataset.countRows("s IS NULL"));
    assertThat(stats.pages()).isEqualTo(1);
    assertThat(stats.pageSize()).isEqualTo(4096);
    assertThat(stats.fragmentsCovered()).isEqualTo(RoaringBitmap.bitmapOf(0, 1));
    assertThat(stats.unindexedFragments()).isEmpty();
    assertThat(stats.unindexedRows()).isZero();
    assertThatThrownBy(() -> BTreeIndexStatistics.of(dataset, "nope"))
        .isInstanceOf(dev.lancelot.engine.InvalidInputException.class)
        .hasMessageContaining("Cannot describe BTree index \"nope\"")
        .hasMessageContaining("there is no index of that name. Its indexes are [i32_idx, s_idx].");
  }
}
