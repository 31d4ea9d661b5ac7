package dev.lancelot.engine.index.scalar;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.CompactionOptions;
import dev.lancelot.engine.CompactionResult;
import dev.lancelot.engine.Scanner;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.testing.LanceOracle;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.WriteParams;
import org.lance.index.IndexParams;
import org.lance.index.scalar.ScalarIndexParams;

/**
 * Compaction rewrites bitmap and n-gram segments for the new row addresses, as lance-core 7 remaps
 * them (decision D69): after our compaction of small fragments with deleted rows, the indexes (ours
 * and Lance-built ones) cover the new fragments, and lance-core's indexed scans (which load them)
 * return the rows of its full scans, as ours do.
 */
@Tag("oracle")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ScalarIndexCompactionOracleTest {
  private static final int ROWS = 4000;
  private BufferAllocator allocator;

  static final List<String> FILTERS =
      List.of(
          "tenant_id = 3",
          "tenant_id IN (7, 8)",
          "tenant_id = 5 AND id < 3000",
          "contains(name, 'user-123')",
          "contains(name, '1io8')",
          "contains(name, 'user-13') AND id < 3500",
          "id = 1234",
          "id IN (5, 3998, 3999)");

  @BeforeAll
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  void tearDown() {
    allocator.close();
  }

  private static TreeSet<Long> ours(Scanner scan) {
    TreeSet<Long> out = new TreeSet<>();
    try (CloseableIterator<VectorSchemaRoot> it =
        scan.columns(List.of()).withRowAddress(true).batches()) {
      while (it.hasNext()) {
        VectorSchemaRoot b = it.next();
        UInt8Vector a = (UInt8Vector) b.getVector("_rowaddr");
        for (int i = 0; i < b.getRowCount(); i++) {
          out.add(a.get(i));
        }
      }
    }
    return out;
  }

  @Test
  void compactionRemapsBitmapAndNgramIndexes(@TempDir Path dir) {
    LanceOracle.write(allocator, dir, 0, ROWS, 4, 11, WriteParams.WriteMode.CREATE, 500);
    try (Dataset lance = LanceOracle.open(allocator, dir)) {
      lance.delete("id % 10 = 1");
    }
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
      ScalarIndexBuilder.build(
              ds, ScalarBuildParams.of(IndexType.BITMAP, "tenant_id").withName("tenant_bitmap"))
          .close();
    }
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
      ScalarIndexBuilder.build(
              ds, ScalarBuildParams.of(IndexType.NGRAM, "name").withName("name_ngram"))
          .close();
    }
    // Lance-built ones are remapped too
    for (String kind : List.of("bitmap", "ngram")) {
      try (Dataset lance = LanceOracle.open(allocator, dir)) {
        lance.createIndex(
            List.of(kind.equals("bitmap") ? "id" : "name"),
            kind.equals("bitmap")
                ? org.lance.index.IndexType.BITMAP
                : org.lance.index.IndexType.NGRAM,
            Optional.of(kind.equals("bitmap") ? "id_bitmap" : "name_lance_ngram"),
            IndexParams.builder().setScalarIndexParams(ScalarIndexParams.create(kind)).build(),
            true);
      }
    }
    try (Dataset lance = LanceOracle.open(allocator, dir)) {
      lance.delete("id % 10 = 2");
    }
    TreeSet<Long> before;
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
      CompactionResult r = ds.compact(CompactionOptions.defaults());
      try (dev.lancelot.engine.Dataset after = r.dataset()) {
        assertThat(r.committed()).isTrue();
        assertThat(r.fragmentsRemoved()).isEqualTo(ROWS / 500);
        assertThat(r.fragmentsAdded()).isEqualTo(1);
        assertThat(r.indexSegmentsRemapped()).isEqualTo(4);
        long newFragment = after.fragments().get(0).id();
        for (String name :
            List.of("tenant_bitmap", "name_ngram", "id_bitmap", "name_lance_ngram")) {
          List<IndexSegment> segments = after.indexes().segments(name);
          assertThat(segments).as(name).hasSize(1);
          assertThat(segments.get(0).fragments().toArray())
              .as(name)
              .containsExactly((int) newFragment);
        }
      }
    }
    try (Dataset lance = LanceOracle.open(allocator, dir)) {
      for (String name : List.of("tenant_bitmap", "name_ngram", "id_bitmap", "name_lance_ngram")) {
        var st = lance.getIndexStatistics(name);
        assertThat(((Number) st.get("num_indexed_rows")).longValue())
            .as(name)
            .isEqualTo(ROWS - ROWS / 10 - ROWS / 10);
        assertThat(((Number) st.get("num_unindexed_fragments")).longValue()).as(name).isZero();
      }
    }
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
      for (String filter : FILTERS) {
        LanceBTreeScans.Scan lance = LanceBTreeScans.scan(allocator, dir, filter, true);
        TreeSet<Long> full = LanceBTreeScans.scan(allocator, dir, filter, false).addresses();
        assertThat(full).as(filter).isNotEmpty();
        assertThat(lance.addresses()).as("lance indexed: %s", filter).isEqualTo(full);
        assertThat(lance.stats()).as(filter).isNotNull();
        assertThat(lance.stats().getIndicesLoaded()).as("lance loads: %s", filter).isPositive();
        Scanner indexed = ds.newScan().filter(filter);
        assertThat(ours(indexed)).as("ours indexed: %s", filter).isEqualTo(full);
        assertThat(indexed.indexUse().used()).as(filter).isTrue();
        assertThat(ours(ds.newScan().filter(filter).useScalarIndex(false)))
            .as("ours full: %s", filter)
            .isEqualTo(full);
      }
    }
  }

  static final List<String> LIST_AND_ZONE_FILTERS =
      List.of(
          "array_has_any(tags, ['t1'])",
          "array_has_all(tags, ['t1', 'u3'])",
          "array_contains(tags, 'u2') AND id >= 450",
          "array_contains(nums, 4)",
          "array_has_any(nums, [0, 5])",
          "id = 123",
          "id BETWEEN 100 AND 220",
          "id IN (5, 400, 899)");

  private static final List<String> KIND_INDEXES =
      List.of("tags_labels", "nums_labels", "id_zones", "id_bloom");

  /**
   * Label lists are remapped, zone maps and bloom filters kept as they are, as lance-core 7.0.0
   * compacts (decision D77): the same operations on two copies, one compacted by lancelot and one
   * by lance-core, leave the same index coverage (label lists on the new fragment under a new uuid;
   * zone indexes unchanged, their compacted fragments gone, so the new fragment is unindexed); both
   * readers' indexed scans of both copies return the rows of their full scans.
   */
  @Test
  void compactionRemapsLabelListsAndKeepsZoneIndexesAsLanceDoes(
      @TempDir Path ourDir, @TempDir Path lanceDir) {
    java.util.Map<Path, java.util.Map<String, IndexSegment>> before = new java.util.HashMap<>();
    for (Path dir : List.of(ourDir, lanceDir)) {
      dev.lancelot.engine.expr.ArrayContainsOracleTest.write(allocator, dir);
      try (Dataset lance = LanceOracle.open(allocator, dir)) {
        lance.delete("id % 10 = 1");
      }
      try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
        ScalarIndexBuilder.build(
                ds, ScalarBuildParams.of(IndexType.LABEL_LIST, "tags").withName("tags_labels"))
            .close();
      }
      try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
        ScalarIndexBuilder.build(
                ds,
                ScalarBuildParams.of(IndexType.ZONEMAP, "id")
                    .withName("id_zones")
                    .withRowsPerZone(100))
            .close();
      }
      try (Dataset lance = LanceOracle.open(allocator, dir)) {
        lance.createIndex(
            List.of("nums"),
            org.lance.index.IndexType.LABEL_LIST,
            Optional.of("nums_labels"),
            IndexParams.builder()
                .setScalarIndexParams(ScalarIndexParams.create("labellist"))
                .build(),
            true);
        lance.createIndex(
            List.of("id"),
            org.lance.index.IndexType.BLOOM_FILTER,
            Optional.of("id_bloom"),
            IndexParams.builder()
                .setScalarIndexParams(
                    ScalarIndexParams.create(
                        "bloomfilter", "{\"number_of_items\": 100, \"probability\": 0.01}"))
                .build(),
            true);
        lance.delete("id % 10 = 2");
      }
      try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
        java.util.Map<String, IndexSegment> segments = new java.util.HashMap<>();
        for (String name : KIND_INDEXES) {
          assertThat(ds.indexes().segments(name)).as(name).hasSize(1);
          segments.put(name, ds.indexes().segments(name).get(0));
        }
        before.put(dir, segments);
      }
    }
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(ourDir.toString())) {
      CompactionResult r = ds.compact(CompactionOptions.defaults());
      r.dataset().close();
      assertThat(r.committed()).isTrue();
      assertThat(r.fragmentsRemoved()).isEqualTo(3);
      assertThat(r.fragmentsAdded()).isEqualTo(1);
      assertThat(r.indexSegmentsRemapped()).isEqualTo(2); // the label lists
    }
    try (Dataset lance = LanceOracle.open(allocator, lanceDir)) {
      lance.compact();
    }
    int live = dev.lancelot.engine.expr.ArrayContainsOracleTest.ROWS * 8 / 10;
    for (Path dir : List.of(ourDir, lanceDir)) {
      try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
        assertThat(ds.fragments()).hasSize(1);
        int newFragment = (int) ds.fragments().get(0).id();
        for (String name : KIND_INDEXES) {
          IndexSegment was = before.get(dir).get(name);
          IndexSegment now = ds.indexes().segments(name).get(0);
          if (name.endsWith("_labels")) {
            assertThat(now.uuid()).as(name).isNotEqualTo(was.uuid());
            assertThat(now.fragments().toArray()).as(name).containsExactly(newFragment);
          } else {
            assertThat(now.uuid()).as(name).isEqualTo(was.uuid());
            assertThat(now.fragments()).as(name).isEqualTo(was.fragments());
          }
        }
      }
      try (Dataset lance = LanceOracle.open(allocator, dir)) {
        for (String name : KIND_INDEXES) {
          var st = lance.getIndexStatistics(name);
          boolean labels = name.endsWith("_labels");
          assertThat(((Number) st.get("num_indexed_rows")).longValue())
              .as("%s in %s", name, dir)
              .isEqualTo(labels ? live : 0);
          assertThat(((Number) st.get("num_unindexed_rows")).longValue())
              .as("%s in %s", name, dir)
              .isEqualTo(labels ? 0 : live);
        }
      }
      try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
        for (String filter : LIST_AND_ZONE_FILTERS) {
          TreeSet<Long> full = LanceBTreeScans.scan(allocator, dir, filter, false).addresses();
          assertThat(full).as(filter).isNotEmpty();
          LanceBTreeScans.Scan lance = LanceBTreeScans.scan(allocator, dir, filter, true);
          assertThat(lance.addresses()).as("lance indexed: %s in %s", filter, dir).isEqualTo(full);
          if (filter.startsWith("array_")) {
            assertThat(lance.stats().getIndicesLoaded()).as("lance loads: %s", filter).isPositive();
          }
          Scanner indexed = ds.newScan().filter(filter);
          assertThat(ours(indexed)).as("ours indexed: %s in %s", filter, dir).isEqualTo(full);
          assertThat(indexed.indexUse().used())
              .as("ours uses an index: %s", filter)
              .isEqualTo(filter.startsWith("array_"));
          assertThat(ours(ds.newScan().filter(filter).useScalarIndex(false)))
              .as("ours full: %s", filter)
              .isEqualTo(full);
        }
      }
    }
  }
}
