package dev.lancelot.engine.index.scalar;

import static dev.lancelot.engine.index.scalar.BTreeTesting.addresses;
import static dev.lancelot.engine.index.scalar.BTreeTesting.indexAddresses;
import static dev.lancelot.engine.index.scalar.BTreeTesting.scanAddresses;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.internal.index.IndexInternals;
import dev.lancelot.engine.testing.LanceOracle;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.WriteParams;
import org.lance.index.Index;
import org.lance.index.IndexOptions;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.OptimizeOptions;
import org.lance.index.scalar.ScalarIndexParams;
import org.roaringbitmap.RoaringBitmap;

/**
 * Both directions with lance-core 7.0.0 on the standard table (skewed int32 {@code tenant_id},
 * {@code name} strings with NULLs), 10,000 rows in three fragments, so indexes have three 4,096-row
 * pages: BTrees Lance builds answer our lookups exactly as a filtered scan (ours and Lance's)
 * selects; BTrees we build are used by Lance's filtered scans and prefiltered nearest queries with
 * the same rows as without them. Lance's distributed builds (several segments of one index, with
 * {@code part_*} file names) read as one index.
 */
@Tag("oracle")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BTreeLanceOracleTest {
  private static final int ROWS = 10_000;
  private static final int DIM = 16;
  private BufferAllocator allocator;

  static final List<String> FILTERS =
      List.of(
          "tenant_id = 0",
          "tenant_id = 7",
          "tenant_id != 0",
          "tenant_id < 3",
          "tenant_id <= 3",
          "tenant_id > 90",
          "tenant_id >= 99",
          "tenant_id BETWEEN 10 AND 20",
          "tenant_id IN (1, 5, 50)",
          "tenant_id NOT IN (0, 1, 2)",
          "tenant_id = 1000",
          "tenant_id > -1",
          "NOT (tenant_id < 50)",
          "tenant_id = 3 OR tenant_id = 60",
          "tenant_id >= 5 AND tenant_id < 8",
          "tenant_id IS NOT NULL",
          "name = 'user-13-1io8'",
          "name < 'user-2'",
          "name >= 'user-9'",
          "name BETWEEN 'user-1' AND 'user-2'",
          "name IN ('user-13-1io8', 'user-5-1kmy', 'nobody')",
          "name IS NULL",
          "name IS NOT NULL",
          "name != 'user-5-1kmy'",
          "name > 'zzz'",
          "NOT (name < 'user-5')",
          "tenant_id = 0 AND name IS NULL",
          "tenant_id < 2 OR name < 'user-11'",
          "NOT (tenant_id = 0 OR name IS NULL)",
          "tenant_id IN (4, 5) AND name >= 'user-3'");

  @BeforeAll
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  void tearDown() {
    allocator.close();
  }

  private void writeStandard(Path dir) {
    LanceOracle.write(allocator, dir, 0, ROWS, DIM, 11, WriteParams.WriteMode.CREATE, 4000);
  }

  @Test
  void ourLookupsOnLanceBuiltBTreesMatchFilteredScans(@TempDir Path dir) {
    writeStandard(dir);
    try (Dataset ds = LanceOracle.open(allocator, dir)) {
      ds.delete("id % 10 = 1"); // before the build: absent from the index
    }
    LanceOracle.createBTree(allocator, dir, "tenant_id");
    LanceOracle.createBTree(allocator, dir, "name");
    try (Dataset ds = LanceOracle.open(allocator, dir)) {
      ds.delete("id % 10 = 2"); // after the build: still in the index
    }
    try (dev.lancelot.engine.Dataset ours = dev.lancelot.engine.Dataset.open(dir.toString())) {
      for (String filter : FILTERS) {
        TreeSet<Long> lance = LanceBTreeScans.scan(allocator, dir, filter, true).addresses();
        assertThat(scanAddresses(ours, filter)).as("our scan: %s", filter).isEqualTo(lance);
        assertThat(indexAddresses(ours, filter)).as("our index: %s", filter).isEqualTo(lance);
      }
      ScalarIndexResult raw = ScalarIndexQuery.plan(ours, "tenant_id = 0").evaluate();
      assertThat(raw.count()).isGreaterThan(raw.withoutDeletedRows(ours).count());

      BTreeIndexStatistics stats = BTreeIndexStatistics.of(ours, "tenant_id_idx");
      assertThat(stats.rowsIndexed()).isEqualTo(ROWS - ROWS / 10);
      assertThat(stats.pages()).isEqualTo(3);
      assertThat(stats.pageSize()).isEqualTo(4096);
      assertThat(stats.fragmentsCovered()).isEqualTo(RoaringBitmap.bitmapOf(0, 1, 2));
      long nullNamesDeletedAfterBuild =
          java.util.stream.LongStream.range(0, ROWS)
              .filter(id -> id % 10 == 2 && id % 7 == 3)
              .count(); // StandardData: name is NULL when id % 7 == 3
      assertThat(BTreeIndexStatistics.of(ours, "name_idx").nullRows())
          .isEqualTo(
              LanceBTreeScans.scan(allocator, dir, "name IS NULL", false).addresses().size()
                  + nullNamesDeletedAfterBuild);
    }
    LanceOracle.write(allocator, dir, ROWS, 1000, DIM, 11, WriteParams.WriteMode.APPEND, 4000);
    try (dev.lancelot.engine.Dataset ours = dev.lancelot.engine.Dataset.open(dir.toString())) {
      ScalarIndexQuery q = ScalarIndexQuery.plan(ours, "tenant_id = 0");
      assertThat(q.uncoveredFragments()).containsExactly(3L);
      assertThat(BTreeIndexStatistics.of(ours, "tenant_id_idx").unindexedRows()).isEqualTo(1000);
    }
  }

  @Test
  void lanceUsesOurBTreesWithTheSameRows(@TempDir Path dir) {
    writeStandard(dir);
    try (dev.lancelot.engine.Dataset ours = dev.lancelot.engine.Dataset.open(dir.toString())) {
      dev.lancelot.engine.Dataset v =
          BTreeIndexBuilder.build(ours, BTreeBuildParams.of("tenant_id"));
      BTreeIndexBuilder.build(v, BTreeBuildParams.of("name"));
    }
    try (Dataset ds = LanceOracle.open(allocator, dir)) {
      assertThat(ds.getIndexes())
          .extracting(Index::name)
          .containsExactlyInAnyOrder("tenant_id_idx", "name_idx");
      assertThat(ds.getIndexes()).extracting(Index::indexType).containsOnly(IndexType.BTREE);
      Map<String, Object> stats = ds.getIndexStatistics("tenant_id_idx");
      assertThat(stats).containsEntry("index_type", "BTree");
      assertThat(((Number) stats.get("num_indexed_rows")).longValue()).isEqualTo(ROWS);
      assertThat(((Number) stats.get("num_indexed_fragments")).longValue()).isEqualTo(3);
    }
    checkLanceAgrees(dir, FILTERS);
    float[] q = new float[DIM];
    q[0] = 1;
    for (String filter :
        List.of(
            "tenant_id = 7",
            "tenant_id >= 90",
            "name < 'user-2'",
            "tenant_id IN (3, 4) AND name IS NOT NULL")) {
      List<Long> withIndex =
          LanceBTreeScans.nearestPrefiltered(allocator, dir, q, 10, filter, true);
      assertThat(withIndex)
          .as(filter)
          .hasSize(10)
          .isEqualTo(LanceBTreeScans.nearestPrefiltered(allocator, dir, q, 10, filter, false));
    }
    // a filter admitting fewer than k rows returns them all
    String rare = "tenant_id >= 0 AND name IN ('user-13-1io8', 'user-5-1kmy', 'nobody')";
    List<Long> few = LanceBTreeScans.nearestPrefiltered(allocator, dir, q, 10, rare, true);
    assertThat(few)
        .hasSize(LanceBTreeScans.scan(allocator, dir, rare, false).addresses().size())
        .hasSize(2);

    // deletes and appends after our build: Lance still gets the same rows with our index
    try (Dataset ds = LanceOracle.open(allocator, dir)) {
      ds.delete("id % 3 = 0");
    }
    LanceOracle.write(allocator, dir, ROWS, 1500, DIM, 11, WriteParams.WriteMode.APPEND, 4000);
    checkLanceAgrees(dir, FILTERS.subList(0, 12));
    try (Dataset ds = LanceOracle.open(allocator, dir)) {
      assertThat(
              ((Number) ds.getIndexStatistics("tenant_id_idx").get("num_unindexed_fragments"))
                  .longValue())
          .isEqualTo(1);
      // Lance folds the new fragment into our index, reading our pages
      ds.optimizeIndices(OptimizeOptions.builder().indexNames(List.of("tenant_id_idx")).build());
    }
    try (dev.lancelot.engine.Dataset ours = dev.lancelot.engine.Dataset.open(dir.toString())) {
      assertThat(ScalarIndexQuery.plan(ours, "tenant_id = 0").uncoveredFragments()).isEmpty();
      for (String filter : FILTERS.subList(0, 16)) {
        assertThat(indexAddresses(ours, filter)).as(filter).isEqualTo(scanAddresses(ours, filter));
      }
    }
  }

  @Test
  void lanceUsesOurDistributedBTreesWithTheSameRows(@TempDir Path dir) {
    writeStandard(dir); // fragments of 4,000, 4,000 and 2,000 rows
    List<List<Long>> groups = new java.util.ArrayList<>();
    dev.lancelot.engine.distributed.ScalarIndexBuild.TaskRunner runner =
        tasks -> {
          List<dev.lancelot.engine.distributed.WrittenSegment> out = new java.util.ArrayList<>();
          for (dev.lancelot.engine.distributed.ScalarIndexBuildTask t : tasks) {
            groups.add(t.fragments());
            try (dev.lancelot.engine.Dataset at = dev.lancelot.engine.Dataset.open(t.location())) {
              out.add(t.run(at));
            }
          }
          return out;
        };
    try (dev.lancelot.engine.Dataset ours = dev.lancelot.engine.Dataset.open(dir.toString());
        dev.lancelot.engine.Dataset v =
            dev.lancelot.engine.distributed.ScalarIndexBuild.create(
                ours, BTreeBuildParams.of("tenant_id"), 4000, runner);
        dev.lancelot.engine.Dataset w =
            dev.lancelot.engine.distributed.ScalarIndexBuild.create(
                v, BTreeBuildParams.of("name"), 8000, runner)) {
      assertThat(groups)
          .containsExactly(List.of(0L), List.of(1L), List.of(2L), List.of(0L, 1L), List.of(2L));
      assertThat(w.indexes().segments("tenant_id_idx")).hasSize(3);
    }
    try (Dataset ds = LanceOracle.open(allocator, dir)) {
      assertThat(ds.getIndexes())
          .extracting(Index::name)
          .containsExactlyInAnyOrder( // Lance lists each segment
              "tenant_id_idx", "tenant_id_idx", "tenant_id_idx", "name_idx", "name_idx");
      Map<String, Object> stats = ds.getIndexStatistics("tenant_id_idx");
      assertThat(((Number) stats.get("num_indexed_rows")).longValue()).isEqualTo(ROWS);
      assertThat(((Number) stats.get("num_indexed_fragments")).longValue()).isEqualTo(3);
    }
    checkLanceAgrees(dir, FILTERS);
    // An append leaves a fragment no segment covers: Lance and we both scan it
    LanceOracle.write(allocator, dir, ROWS, 1500, DIM, 11, WriteParams.WriteMode.APPEND, 4000);
    try (Dataset ds = LanceOracle.open(allocator, dir)) {
      assertThatThrownBy(
              () ->
                  ds.optimizeIndices(
                      OptimizeOptions.builder().indexNames(List.of("tenant_id_idx")).build()))
          .hasMessageContaining("does not exist"); // as for Lance's own distributed builds
    }
    try (dev.lancelot.engine.Dataset ours = dev.lancelot.engine.Dataset.open(dir.toString())) {
      assertThat(ScalarIndexQuery.plan(ours, "tenant_id = 0").uncoveredFragments())
          .containsExactly(3L);
    }
    checkLanceAgrees(dir, FILTERS.subList(0, 16));
  }

  @Test
  void lanceDistributedSegmentsReadAsOneIndex(@TempDir Path dir) {
    writeStandard(dir);
    try (Dataset ds = LanceOracle.open(allocator, dir)) {
      IndexParams params =
          IndexParams.builder().setScalarIndexParams(ScalarIndexParams.create("btree")).build();
      List<Index> segments = new java.util.ArrayList<>();
      for (List<Integer> fragments : List.of(List.of(0), List.of(1, 2))) {
        segments.add(
            ds.createIndex(
                IndexOptions.builder(List.of("tenant_id"), IndexType.BTREE, params)
                    .withIndexName("tenant_id_idx")
                    .withFragmentIds(fragments)
                    .build()));
      }
      ds.commitExistingIndexSegments("tenant_id_idx", "tenant_id", segments);
    }
    try (dev.lancelot.engine.Dataset ours = dev.lancelot.engine.Dataset.open(dir.toString())) {
      assertThat(ours.indexes().segments("tenant_id_idx")).hasSize(2);
      assertThat(
              IndexInternals.proto(ours.indexes().segments("tenant_id_idx").get(0))
                  .getFiles(0)
                  .getPath())
          .startsWith("part_")
          .endsWith("_page_data.lance");
      for (String filter : FILTERS.subList(0, 16)) {
        TreeSet<Long> lance = LanceBTreeScans.scan(allocator, dir, filter, true).addresses();
        assertThat(indexAddresses(ours, filter)).as(filter).isEqualTo(lance);
      }
      BTreeIndexStatistics stats = BTreeIndexStatistics.of(ours, "tenant_id_idx");
      assertThat(stats.segments()).isEqualTo(2);
      assertThat(stats.rowsIndexed()).isEqualTo(ROWS);
      assertThat(stats.fragmentsCovered()).isEqualTo(RoaringBitmap.bitmapOf(0, 1, 2));
    }
    LanceOracle.write(allocator, dir, ROWS, 1500, DIM, 11, WriteParams.WriteMode.APPEND, 4000);
    try (Dataset ds = LanceOracle.open(allocator, dir)) {
      // Lance 7.0.0 cannot optimize a BTree of several segments, its own included (so ours too)
      assertThatThrownBy(
              () ->
                  ds.optimizeIndices(
                      OptimizeOptions.builder().indexNames(List.of("tenant_id_idx")).build()))
          .hasMessageContaining("does not exist");
    }
  }

  /** Lance with our indexes = Lance without them = our index = our scan. */
  private void checkLanceAgrees(Path dir, List<String> filters) {
    try (dev.lancelot.engine.Dataset ours = dev.lancelot.engine.Dataset.open(dir.toString())) {
      int usedIndex = 0;
      for (String filter : filters) {
        LanceBTreeScans.Scan indexed = LanceBTreeScans.scan(allocator, dir, filter, true);
        TreeSet<Long> plain = LanceBTreeScans.scan(allocator, dir, filter, false).addresses();
        assertThat(indexed.addresses()).as("Lance with our index: %s", filter).isEqualTo(plain);
        assertThat(scanAddresses(ours, filter)).as("our scan: %s", filter).isEqualTo(plain);
        ScalarIndexQuery query = ScalarIndexQuery.plan(ours, filter);
        TreeSet<Long> mine = addresses(query.evaluate().withoutDeletedRows(ours));
        TreeSet<Long> coveredPart = new TreeSet<>();
        for (long a : plain) {
          if (query.coveredFragments().contains((int) (a >>> 32))) {
            coveredPart.add(a);
          }
        }
        assertThat(mine).as("our index: %s", filter).isEqualTo(coveredPart);
        // Lance loaded the index (and, unless the lookup ruled every page out, some of its pages)
        usedIndex += indexed.stats() != null && indexed.stats().getIndicesLoaded() > 0 ? 1 : 0;
      }
      assertThat(usedIndex).isEqualTo(filters.size());
    }
  }
}
