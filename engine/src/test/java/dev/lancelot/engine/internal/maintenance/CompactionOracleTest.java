package dev.lancelot.engine.internal.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.CompactionOptions;
import dev.lancelot.engine.CompactionResult;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentInfo;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.scalar.BTreeBuildParams;
import dev.lancelot.engine.index.scalar.BTreeIndexBuilder;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.format.proto.TransactionProtos.Transaction;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.query.VectorSearch;
import dev.lancelot.engine.query.VectorSearchResult;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.ClusteredData;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.testing.Rows;
import dev.lancelot.engine.vector.DistanceMetric;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.WriteParams;
import org.lance.index.DistanceType;

/**
 * Compaction (D23) in both directions against lance-core 7.0.0: our compaction keeps every row,
 * every scan and every vector and scalar-index search identical, Lance reads the result and its
 * searches use our remapped segments; and we read a dataset Lance compacted.
 */
@Tag("oracle")
class CompactionOracleTest {
  static final int DIM = 16;
  static final List<String> COLUMNS = List.of("id", "tenant_id", "name", "vector");
  static BufferAllocator allocator;
  static float[][] queries;

  @BeforeAll
  static void setUp() {
    allocator = new RootAllocator();
    queries = ClusteredData.queries(12, DIM, 20, 3, 77);
  }

  @AfterAll
  static void tearDown() {
    allocator.close();
  }

  static Dataset append(Path dir, long firstId, int rows, WriteMode mode) {
    try (VectorSchemaRoot batch = ClusteredData.generate(allocator, firstId, rows, DIM, 20, 3);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch))) {
      return Dataset.write(dir.toString(), reader, WriteOptions.of(mode));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  static List<List<Object>> scan(Dataset ds, List<String> columns, String filter) {
    List<List<Object>> out = new ArrayList<>();
    try (CloseableIterator<VectorSchemaRoot> it =
        ds.newScan().columns(columns).filter(filter).batches()) {
      while (it.hasNext()) {
        out.addAll(Rows.of(it.next()));
      }
    }
    return out;
  }

  /** Ids and distances of our search, in result order. */
  static List<List<Object>> search(Dataset ds, VectorQuery q) {
    try (VectorSearchResult r = VectorSearch.search(ds, q)) {
      return Rows.of(r.rows());
    }
  }

  static List<List<List<Object>>> searches(Dataset ds) {
    List<List<List<Object>>> out = new ArrayList<>();
    for (float[] q : queries) {
      out.add(
          search(
              ds, VectorQuery.builder("vector").vector(q).k(10).nprobes(2).columns("id").build()));
      out.add(
          search(
              ds,
              VectorQuery.builder("vector")
                  .vector(q)
                  .k(10)
                  .nprobes(3)
                  .refineFactor(2)
                  .filter("tenant_id < 5")
                  .prefilter(true)
                  .columns("id")
                  .build()));
    }
    return out;
  }

  static List<List<Long>> lanceSearches(Path dir) {
    List<List<Long>> out = new ArrayList<>();
    for (float[] q : queries) {
      out.add(LanceOracle.nearestIds(allocator, dir, q, 10, 2, null, false));
      out.add(LanceOracle.nearestIds(allocator, dir, q, 10, 2, "tenant_id < 5", true));
    }
    return out;
  }

  @Test
  void ourCompactionKeepsRowsAndSearchesAndLanceUsesTheRemappedIndexes(@TempDir Path dir) {
    append(dir, 0, 400, WriteMode.CREATE).close();
    for (int i = 1; i < 6; i++) {
      append(dir, i * 400L, 400, WriteMode.APPEND).close();
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      Dataset indexed =
          VectorIndexes.create(
              ds,
              "vector",
              VectorIndexSpec.of(IndexType.IVF_PQ, DistanceMetric.L2)
                  .withNumPartitions(4)
                  .withNumSubVectors(4));
      BTreeIndexBuilder.build(indexed, BTreeBuildParams.of("tenant_id")).close();
    }
    append(dir, 2400, 300, WriteMode.APPEND).close(); // two unindexed fragments
    append(dir, 2700, 300, WriteMode.APPEND).close();
    Dataset opened = Dataset.open(dir.toString());
    Dataset before = opened.delete("name IS NULL AND id < 1600"); // 1 row in 7 of fragments 0-3
    List<List<Object>> rowsBefore = scan(before, COLUMNS, null);
    List<List<List<Object>>> searchesBefore = searches(before);
    List<List<Long>> lanceBefore = lanceSearches(dir);
    List<List<Object>> lanceFilteredBefore =
        LanceOracle.rows(allocator, dir, List.of("id"), "tenant_id = 7");
    long versionBefore = before.version();

    CompactionResult r = before.compact(CompactionOptions.defaults());
    try (Dataset after = r.dataset()) {
      assertThat(r.committed()).isTrue();
      assertThat(after.version()).isEqualTo(versionBefore + 1);
      // Fragments 0-5 share both indexes, 6-7 share none: two groups, one new fragment each.
      assertThat(r.fragmentsRemoved()).isEqualTo(8);
      assertThat(r.fragmentsAdded()).isEqualTo(2);
      assertThat(r.indexSegmentsRemapped()).isEqualTo(2);
      assertThat(r.rowsRewritten()).isEqualTo(before.countRows());
      List<FragmentInfo> frags = after.fragments();
      assertThat(frags).extracting(FragmentInfo::id).containsExactly(8L, 9L);
      assertThat(frags).allMatch(f -> f.deletedRows() == 0);
      assertThat(frags.get(0).physicalRows()).isEqualTo(2400 - 1600 / 7 - 1);

      Transaction txn = DatasetInternals.snapshot(after).file().transaction().orElseThrow();
      assertThat(txn.hasRewrite()).isTrue();
      assertThat(txn.getRewrite().getGroupsCount()).isEqualTo(2);
      assertThat(txn.getRewrite().getRewrittenIndicesCount()).isEqualTo(2);
      for (IndexSegment s : after.indexes().allSegments()) {
        assertThat(s.fragments().toArray()).containsExactly(8);
        assertThat(before.indexes().allSegments())
            .extracting(IndexSegment::uuid)
            .doesNotContain(s.uuid());
      }

      assertThat(scan(after, COLUMNS, null)).isEqualTo(rowsBefore);
      assertThat(searches(after)).isEqualTo(searchesBefore);

      // Lance 7 reads the compacted version identically and searches with our remapped segments.
      assertThat(LanceOracle.rows(allocator, dir, COLUMNS, null)).isEqualTo(rowsBefore);
      assertThat(lanceSearches(dir)).isEqualTo(lanceBefore);
      assertThat(LanceOracle.rows(allocator, dir, List.of("id"), "tenant_id = 7"))
          .isEqualTo(lanceFilteredBefore);
      try (org.lance.Dataset lance = LanceOracle.open(allocator, dir)) {
        assertThat(lance.version()).isEqualTo(after.version());
        assertThat(lance.getIndexes()).hasSize(2);
      }
      // Nothing left to do: a second compaction commits nothing.
      CompactionResult again = after.compact(CompactionOptions.defaults());
      assertThat(again.committed()).isFalse();
      assertThat(again.dataset().version()).isEqualTo(after.version());
    }
    opened.close();
  }

  @Test
  void hnswSegmentsAreRebuiltOverTheRemappedRows(@TempDir Path dir) {
    append(dir, 0, 500, WriteMode.CREATE).close();
    append(dir, 500, 500, WriteMode.APPEND).close();
    append(dir, 1000, 500, WriteMode.APPEND).close();
    try (Dataset ds = Dataset.open(dir.toString())) {
      VectorIndexes.create(
              ds,
              "vector",
              VectorIndexSpec.of(IndexType.IVF_HNSW_SQ, DistanceMetric.COSINE).withNumPartitions(2))
          .close();
    }
    Dataset opened = Dataset.open(dir.toString());
    Dataset before = opened.delete("name IS NULL"); // 1 row in 7
    int hitsBefore = annHits(before);
    CompactionResult r = before.compact(CompactionOptions.defaults());
    try (Dataset after = r.dataset()) {
      assertThat(r.fragmentsAdded()).isEqualTo(1);
      assertThat(after.indexes().allSegments()).hasSize(1);
      // The rebuilt graphs find the exact neighbours about as well as the original ones did.
      int hitsAfter = annHits(after);
      assertThat(hitsAfter)
          .isGreaterThanOrEqualTo(hitsBefore - queries.length / 2)
          .isGreaterThanOrEqualTo((int) (0.8 * 10 * queries.length));
      List<Long> lanceIds = LanceOracle.nearestIds(allocator, dir, queries[0], 10, 2, null, false);
      assertThat(lanceIds).hasSize(10).allMatch(id -> id % 7 != 3);
    }
    opened.close();
  }

  /**
   * Rows of the exact top 10 the index search finds, over all queries; no deleted row is ever
   * found.
   */
  static int annHits(Dataset ds) {
    int hits = 0;
    for (float[] q : queries) {
      List<Object> exact =
          search(
                  ds,
                  VectorQuery.builder("vector")
                      .vector(q)
                      .k(10)
                      .useIndex(false)
                      .columns("id")
                      .build())
              .stream()
              .map(row -> row.get(0))
              .toList();
      List<Object> ann =
          search(ds, VectorQuery.builder("vector").vector(q).k(10).nprobes(2).columns("id").build())
              .stream()
              .map(row -> row.get(0))
              .toList();
      assertThat(ann).allMatch(id -> ((Long) id) % 7 != 3);
      for (Object id : ann) {
        hits += exact.contains(id) ? 1 : 0;
      }
    }
    return hits;
  }

  @Test
  void readsADatasetLanceCompacted(@TempDir Path dir) throws Exception {
    ClusteredData.write(allocator, dir, 0, 2000, DIM, 20, 3, WriteParams.WriteMode.CREATE, 250);
    LanceOracle.createIvfPq(allocator, dir, "vector", 4, 4, DistanceType.L2);
    LanceOracle.createBTree(allocator, dir, "tenant_id");
    try (org.lance.Dataset lance = LanceOracle.open(allocator, dir)) {
      lance.delete("id % 5 = 2");
    }
    List<List<Long>> lanceBefore = lanceSearches(dir);
    try (org.lance.Dataset lance = LanceOracle.open(allocator, dir)) {
      lance.compact();
    }
    try (Dataset ours = Dataset.open(dir.toString())) {
      assertThat(ours.fragments()).hasSize(1);
      assertThat(ours.versions())
          .extracting(dev.lancelot.engine.VersionInfo::operation)
          .contains("rewrite");
      assertThat(scan(ours, COLUMNS, null))
          .isEqualTo(LanceOracle.rows(allocator, dir, COLUMNS, null));
      assertThat(lanceSearches(dir)).isEqualTo(lanceBefore);
      // Our searches on Lance's remapped segments: the rows Lance finds (up to ties: rows with
      // the same PQ codes have the same distance).
      for (float[] q : queries) {
        List<LanceOracle.Hit> hits =
            search(
                    ours,
                    VectorQuery.builder("vector").vector(q).k(10).nprobes(2).columns("id").build())
                .stream()
                .map(row -> new LanceOracle.Hit((Long) row.get(0), (Float) row.get(1)))
                .toList();
        LanceOracle.assertSameUpToTies(
            hits, LanceOracle.nearest(allocator, dir, q, 10, 2, null, null, true, null, false));
      }
      assertThat(ours.countRows("tenant_id = 7"))
          .isEqualTo(LanceOracle.rows(allocator, dir, List.of("id"), "tenant_id = 7").size());
      // One small unindexed fragment of our own is left alone; two are compacted together (they
      // never join the indexed fragment), and Lance reads the result.
      try (VectorSchemaRoot more = ClusteredData.generate(allocator, 2000, 100, DIM, 20, 3);
          VectorSchemaRoot evenMore = ClusteredData.generate(allocator, 2100, 100, DIM, 20, 3);
          ArrowReader moreReader = ArrowStreams.readerOf(allocator, List.of(more));
          ArrowReader evenMoreReader = ArrowStreams.readerOf(allocator, List.of(evenMore));
          Dataset appended = ours.append(moreReader)) {
        assertThat(appended.compact(CompactionOptions.defaults()).committed()).isFalse();
        Dataset twice = appended.append(evenMoreReader);
        CompactionResult r = twice.compact(CompactionOptions.defaults());
        assertThat(r.committed()).isTrue();
        assertThat(r.fragmentsRemoved()).isEqualTo(2);
        assertThat(r.dataset().fragments()).hasSize(2);
        assertThat(LanceOracle.rows(allocator, dir, COLUMNS, null))
            .isEqualTo(scan(r.dataset(), COLUMNS, null));
        r.dataset().close();
      }
    }
  }

  @Test
  void remapsSegmentsLanceBuiltAndLanceStillSearchesThem(@TempDir Path dir) throws Exception {
    ClusteredData.write(allocator, dir, 0, 2000, DIM, 20, 3, WriteParams.WriteMode.CREATE, 250);
    LanceOracle.createIvfPq(allocator, dir, "vector", 4, 4, DistanceType.L2);
    LanceOracle.createBTree(allocator, dir, "tenant_id");
    try (org.lance.Dataset lance = LanceOracle.open(allocator, dir)) {
      lance.delete("id < 100");
    }
    List<List<Long>> lanceBefore = lanceSearches(dir);
    List<List<Object>> rowsBefore = LanceOracle.rows(allocator, dir, COLUMNS, null);
    try (Dataset ours = Dataset.open(dir.toString())) {
      List<List<List<Object>>> oursBefore = searches(ours);
      CompactionResult r = ours.compact(CompactionOptions.defaults());
      assertThat(r.fragmentsRemoved()).isEqualTo(8);
      assertThat(r.indexSegmentsRemapped()).isEqualTo(2);
      assertThat(searches(r.dataset())).isEqualTo(oursBefore);
      r.dataset().close();
    }
    assertThat(LanceOracle.rows(allocator, dir, COLUMNS, null)).isEqualTo(rowsBefore);
    assertThat(lanceSearches(dir)).isEqualTo(lanceBefore);
  }

  @Test
  void aConcurrentAppendMakesTheCompactionFailCleanly(@TempDir Path dir) throws Exception {
    append(dir, 0, 100, WriteMode.CREATE).close();
    append(dir, 100, 100, WriteMode.APPEND).close();
    try (Dataset ds = Dataset.open(dir.toString())) {
      Dataset indexed =
          VectorIndexes.create(
              ds,
              "vector",
              VectorIndexSpec.of(IndexType.IVF_FLAT, DistanceMetric.L2).withNumPartitions(2));
      long dataFiles;
      long indexDirs;
      try (var s = java.nio.file.Files.list(dir.resolve("data"))) {
        dataFiles = s.count();
      }
      try (var s = java.nio.file.Files.list(dir.resolve("_indices"))) {
        indexDirs = s.count();
      }
      append(dir, 200, 100, WriteMode.APPEND).close(); // commits after `indexed` was read
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> indexed.compact(CompactionOptions.defaults()))
          .isInstanceOf(dev.lancelot.engine.CommitConflictException.class)
          .hasMessageContaining("Cannot commit rewrite to")
          .hasMessageContaining("a concurrent append was committed as version 4");
      try (var s = java.nio.file.Files.list(dir.resolve("data"))) {
        assertThat(s.count()).isEqualTo(dataFiles + 1); // only the append's file
      }
      try (var s = java.nio.file.Files.list(dir.resolve("_indices"))) {
        assertThat(s.count()).isEqualTo(indexDirs);
      }
      try (Dataset latest = Dataset.open(dir.toString())) {
        CompactionResult r = latest.compact(CompactionOptions.defaults());
        assertThat(r.committed()).isTrue();
        assertThat(r.dataset().countRows()).isEqualTo(300);
      }
    }
  }
}
