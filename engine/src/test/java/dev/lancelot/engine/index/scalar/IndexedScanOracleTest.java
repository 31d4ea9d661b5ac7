package dev.lancelot.engine.index.scalar;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Scanner;
import dev.lancelot.engine.io.ReadCounters;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.ClusteredData;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.testing.Rows;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.WriteParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.lance.merge.MergeInsertParams;

/**
 * Filtered scans answered from BTree and bitmap indexes, both directions with lance-core 7.0.0: on
 * BTrees and bitmap indexes Lance builds (rows deleted before and after the build, a fragment
 * appended after it, stable row ids through an update and a compaction) our indexed scan returns
 * what our full scan and Lance's scan return; on BTrees we build, Lance's indexed scan returns what
 * ours does.
 */
@Tag("oracle")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IndexedScanOracleTest {
  private static final int ROWS = 10_000;
  private static final int DIM = 16;
  private BufferAllocator allocator;

  /** Filters on the standard table; {@code id} has no index. */
  static final List<String> FILTERS;

  static {
    List<String> f = new ArrayList<>(BTreeLanceOracleTest.FILTERS);
    f.addAll(
        List.of(
            "tenant_id = 7 AND id > 5000",
            "tenant_id < 3 AND name LIKE 'user-1%'",
            "(tenant_id = 1 OR name = 'user-13-1io8') AND id % 2 = 0",
            "NOT (tenant_id > 2 OR id < 100)",
            "tenant_id = 7 OR id < 10"));
    FILTERS = List.copyOf(f);
  }

  @BeforeAll
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  void tearDown() {
    allocator.close();
  }

  private static TreeSet<Long> ourAddresses(Scanner scan) {
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
  void ourIndexedScansOnLanceBuiltBTreesMatchLance(@TempDir Path dir) {
    LanceOracle.write(allocator, dir, 0, ROWS, DIM, 11, WriteParams.WriteMode.CREATE, 4000);
    try (Dataset ds = LanceOracle.open(allocator, dir)) {
      ds.delete("id % 10 = 1");
    }
    LanceOracle.createBTree(allocator, dir, "tenant_id");
    LanceOracle.createBTree(allocator, dir, "name");
    try (Dataset ds = LanceOracle.open(allocator, dir)) {
      ds.delete("id % 10 = 2");
    }
    LanceOracle.write(allocator, dir, ROWS, 1000, DIM, 11, WriteParams.WriteMode.APPEND, 4000);
    try (dev.lancelot.engine.Dataset ours = dev.lancelot.engine.Dataset.open(dir.toString())) {
      int used = 0;
      for (String filter : FILTERS) {
        TreeSet<Long> lance = LanceBTreeScans.scan(allocator, dir, filter, true).addresses();
        Scanner indexed = ours.newScan().filter(filter);
        assertThat(ourAddresses(indexed)).as("indexed: %s", filter).isEqualTo(lance);
        assertThat(ourAddresses(ours.newScan().filter(filter).useScalarIndex(false)))
            .as("full: %s", filter)
            .isEqualTo(lance);
        used += indexed.indexUse().used() ? 1 : 0;
      }
      assertThat(used).isEqualTo(FILTERS.size() - 1); // all but the OR with an unindexed column

      ReadCounters.Reading start = ReadCounters.now();
      TreeSet<Long> hits = ourAddresses(ours.newScan().filter("name = 'user-13-1io8'"));
      long scanned = start.since().rowsScanned();
      assertThat(hits).isNotEmpty();
      // the selected rows of the three indexed fragments, and the appended fragment in full
      assertThat(scanned).isLessThanOrEqualTo(1000 + hits.size()).isGreaterThan(1000);
    }
  }

  @Test
  void lanceIndexedScansOnOurBTreesMatchOurs(@TempDir Path dir) {
    LanceOracle.write(allocator, dir, 0, ROWS, DIM, 11, WriteParams.WriteMode.CREATE, 4000);
    try (dev.lancelot.engine.Dataset ours = dev.lancelot.engine.Dataset.open(dir.toString())) {
      BTreeIndexBuilder.build(
          BTreeIndexBuilder.build(ours, BTreeBuildParams.of("tenant_id")),
          BTreeBuildParams.of("name"));
    }
    try (Dataset ds = LanceOracle.open(allocator, dir)) {
      ds.delete("id % 3 = 0");
    }
    try (dev.lancelot.engine.Dataset ours = dev.lancelot.engine.Dataset.open(dir.toString())) {
      for (String filter : FILTERS) {
        assertThat(ourAddresses(ours.newScan().filter(filter)))
            .as(filter)
            .isEqualTo(LanceBTreeScans.scan(allocator, dir, filter, true).addresses());
      }
    }
  }

  /** Builds a bitmap index with Lance on {@code column}, named {@code <column>_bitmap}. */
  private void createBitmap(Path dir, String column) {
    try (Dataset ds = LanceOracle.open(allocator, dir)) {
      ds.createIndex(
          List.of(column),
          org.lance.index.IndexType.BITMAP,
          java.util.Optional.of(column + "_bitmap"),
          org.lance.index.IndexParams.builder()
              .setScalarIndexParams(org.lance.index.scalar.ScalarIndexParams.create("bitmap"))
              .build(),
          true);
    }
  }

  @Test
  void ourIndexedScansOnLanceBuiltBitmapsMatchLance(@TempDir Path dir) throws Exception {
    LanceOracle.write(allocator, dir, 0, ROWS, DIM, 11, WriteParams.WriteMode.CREATE, 4000);
    try (Dataset ds = LanceOracle.open(allocator, dir)) {
      ds.delete("id % 10 = 1");
    }
    createBitmap(dir, "tenant_id");
    createBitmap(dir, "name");
    try (Dataset ds = LanceOracle.open(allocator, dir)) {
      ds.delete("id % 10 = 2");
    }
    LanceOracle.write(allocator, dir, ROWS, 1000, DIM, 11, WriteParams.WriteMode.APPEND, 4000);
    try (dev.lancelot.engine.Dataset ours = dev.lancelot.engine.Dataset.open(dir.toString())) {
      int used = 0;
      for (String filter : FILTERS) {
        // Lance refuses LIKE on a bitmap-indexed column; its scan without indexes answers those
        boolean lanceIndexes = !filter.contains("LIKE");
        TreeSet<Long> lance =
            LanceBTreeScans.scan(allocator, dir, filter, lanceIndexes).addresses();
        Scanner indexed = ours.newScan().filter(filter);
        assertThat(ourAddresses(indexed)).as("indexed: %s", filter).isEqualTo(lance);
        assertThat(ourAddresses(ours.newScan().filter(filter).useScalarIndex(false)))
            .as("full: %s", filter)
            .isEqualTo(lance);
        used += indexed.indexUse().used() ? 1 : 0;
      }
      assertThat(used).isEqualTo(FILTERS.size() - 1);
      assertThat(ours.newScan().filter("tenant_id IN (3, 5) AND name IS NULL").indexUse().indexes())
          .containsExactly("tenant_id_bitmap", "name_bitmap");

      ReadCounters.Reading start = ReadCounters.now();
      TreeSet<Long> hits = ourAddresses(ours.newScan().filter("tenant_id = 60"));
      long scanned = start.since().rowsScanned();
      assertThat(hits).isNotEmpty();
      assertThat(scanned).isLessThanOrEqualTo(1000 + hits.size()).isGreaterThan(1000);
    }

    // a flat search prefiltered on bitmap-indexed columns returns Lance's rows
    float[] q = new float[DIM];
    q[0] = 1;
    try (dev.lancelot.engine.Dataset ours = dev.lancelot.engine.Dataset.open(dir.toString())) {
      for (String filter : List.of("tenant_id = 7", "tenant_id IN (3, 4) AND name IS NOT NULL")) {
        dev.lancelot.engine.query.VectorQuery query =
            dev.lancelot.engine.query.VectorQuery.builder("vector")
                .vector(q)
                .k(10)
                .useIndex(false)
                .filter(filter)
                .prefilter(true)
                .columns("id")
                .build();
        List<Long> ids = new ArrayList<>();
        try (dev.lancelot.engine.query.VectorSearchResult r =
            dev.lancelot.engine.query.VectorSearch.search(ours, query)) {
          for (int i = 0; i < r.rowCount(); i++) {
            ids.add(((Number) r.rows().getVector("id").getObject(i)).longValue());
          }
        }
        List<Long> lance =
            LanceOracle.nearest(allocator, dir, q, 10, null, null, null, false, filter, true)
                .stream()
                .map(LanceOracle.Hit::id)
                .toList();
        assertThat(ids).as(filter).hasSize(10).containsExactlyInAnyOrderElementsOf(lance);
      }
    }

    // a damaged bitmap file fails the scan naming it
    Path lookup;
    try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(dir.resolve("_indices"))) {
      lookup =
          files
              .filter(p -> p.getFileName().toString().equals("bitmap_page_lookup.lance"))
              .findFirst()
              .orElseThrow();
    }
    byte[] bytes = java.nio.file.Files.readAllBytes(lookup);
    java.nio.file.Files.write(lookup, java.util.Arrays.copyOf(bytes, bytes.length / 2));
    try (dev.lancelot.engine.Dataset ours = dev.lancelot.engine.Dataset.open(dir.toString())) {
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> ourAddresses(ours.newScan().filter("tenant_id = 7 AND name IS NOT NULL")))
          .isInstanceOf(ScalarIndexException.class)
          .hasMessageContaining("bitmap_page_lookup.lance");
    }
  }

  /** Lance's scan of id, tenant_id, name and _rowid, in scan order. */
  private List<List<Object>> lanceRows(Path dir, String filter) throws Exception {
    List<List<Object>> out = new ArrayList<>();
    try (Dataset ds = LanceOracle.open(allocator, dir);
        LanceScanner scanner =
            ds.newScan(
                new ScanOptions.Builder()
                    .columns(List.of("id", "tenant_id", "name"))
                    .withRowId(true)
                    .filter(filter)
                    .build());
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        out.addAll(Rows.of(reader.getVectorSchemaRoot()));
      }
    }
    return out;
  }

  private static List<List<Object>> ourRows(Scanner scan) {
    List<List<Object>> out = new ArrayList<>();
    try (CloseableIterator<VectorSchemaRoot> it =
        scan.columns("id", "tenant_id", "name").withRowId(true).batches()) {
      while (it.hasNext()) {
        out.addAll(Rows.of(it.next()));
      }
    }
    return out;
  }

  private void writeStable(Path dir, long first, int rows, WriteParams.WriteMode mode) {
    try (VectorSchemaRoot batch = ClusteredData.generate(allocator, first, rows, DIM, 12, 5)) {
      Dataset.write()
          .allocator(allocator)
          .reader(ArrowStreams.readerOf(allocator, List.of(batch)))
          .uri(dir.toString())
          .mode(mode)
          .maxRowsPerFile(500)
          .enableStableRowIds(true)
          .execute()
          .close();
    }
  }

  @Test
  void stableRowIdsThroughUpdateAndCompaction(@TempDir Path dir) throws Exception {
    writeStable(dir, 0, 2000, WriteParams.WriteMode.CREATE);
    LanceOracle.createBTree(allocator, dir, "tenant_id");
    try (Dataset lance = LanceOracle.open(allocator, dir)) {
      lance.delete("id % 7 = 3");
    }
    // rows 100..299 get new tenants: deleted and rewritten in a new fragment, same row ids
    try (Dataset lance = LanceOracle.open(allocator, dir);
        VectorSchemaRoot batch = ClusteredData.generate(allocator, 100, 200, DIM, 12, 77);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch));
        ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator)) {
      Data.exportArrayStream(allocator, reader, stream);
      lance.mergeInsert(new MergeInsertParams(List.of("id")).withMatchedUpdateAll(), stream);
    }
    checkStable(dir);
    try (Dataset lance = LanceOracle.open(allocator, dir)) {
      lance.compact();
    }
    checkStable(dir);
  }

  private void checkStable(Path dir) throws Exception {
    try (dev.lancelot.engine.Dataset ours = dev.lancelot.engine.Dataset.open(dir.toString())) {
      assertThat(ours.stableRowIds()).isTrue();
      for (String filter :
          List.of(
              "tenant_id = 3",
              "tenant_id < 5",
              "tenant_id >= 60",
              "tenant_id IN (1, 2) AND id > 150",
              "NOT (tenant_id = 4)")) {
        Scanner indexed = ours.newScan().filter(filter);
        List<List<Object>> lance = lanceRows(dir, filter);
        assertThat(ourRows(indexed)).as("indexed: %s", filter).isEqualTo(lance);
        assertThat(ourRows(ours.newScan().filter(filter).useScalarIndex(false)))
            .as("full: %s", filter)
            .isEqualTo(lance);
        assertThat(indexed.indexUse().used()).as(filter).isTrue();
      }
    }
  }
}
