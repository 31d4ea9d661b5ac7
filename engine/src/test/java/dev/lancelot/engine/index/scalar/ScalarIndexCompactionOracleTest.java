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
}
