package dev.lancelot.engine.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.index.scalar.BTreeBuildParams;
import dev.lancelot.engine.index.scalar.BTreeIndexBuilder;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.format.RowIdSequence;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.format.proto.TableProtos.Manifest;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.ClusteredData;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.testing.Rows;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.lance.WriteParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.roaringbitmap.RoaringBitmap;

/**
 * F7, writes: lancelot appends to and deletes from a dataset lance-core 7.0.0 created with stable
 * row ids; lance-core reads the same rows with the same {@code _rowid}s, and its own append
 * afterwards continues from lancelot's {@code next_row_id}. Every other operation is refused on
 * such a dataset, naming flag 2 and the operation, and changes nothing.
 */
@Tag("oracle")
class StableRowIdsWriteOracleTest {
  static final int DIM = 8;
  static final List<String> COLUMNS = List.of("id", "tenant_id", "name", "vector");
  static BufferAllocator allocator;

  @BeforeAll
  static void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  static void tearDown() {
    allocator.close();
  }

  /** A dataset lance-core creates with stable row ids: 2,000 rows then 600 appended. */
  static Path lanceCreated(String name) throws Exception {
    Path dir = Files.createTempDirectory(name);
    lanceWrite(dir, 0, 2000, WriteParams.WriteMode.CREATE);
    lanceWrite(dir, 2000, 600, WriteParams.WriteMode.APPEND);
    return dir;
  }

  static void lanceWrite(Path dir, long first, int rows, WriteParams.WriteMode mode) {
    try (VectorSchemaRoot batch = ClusteredData.generate(allocator, first, rows, DIM, 6, 5)) {
      org.lance.Dataset.write()
          .allocator(allocator)
          .reader(ArrowStreams.readerOf(allocator, List.of(batch)))
          .uri(dir.toString())
          .mode(mode)
          .maxRowsPerFile(500)
          .enableStableRowIds(mode == WriteParams.WriteMode.CREATE)
          .execute()
          .close();
    }
  }

  static Dataset ourAppend(Path dir, long first, int rows) {
    try (VectorSchemaRoot batch = ClusteredData.generate(allocator, first, rows, DIM, 6, 9);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch))) {
      return Dataset.write(
          dir.toString(), reader, WriteOptions.of(WriteMode.APPEND).withMaxRowsPerFile(300));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  static List<List<Object>> lanceRows(Path dir, long version) throws Exception {
    List<List<Object>> out = new ArrayList<>();
    try (org.lance.Dataset ds =
            org.lance.Dataset.open(
                allocator,
                dir.toString(),
                new org.lance.ReadOptions.Builder().setVersion(version).build());
        LanceScanner scanner =
            ds.newScan(new ScanOptions.Builder().columns(COLUMNS).withRowId(true).build());
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        out.addAll(Rows.of(reader.getVectorSchemaRoot()));
      }
    }
    return out;
  }

  static List<List<Object>> ourRows(Dataset ds) {
    List<List<Object>> out = new ArrayList<>();
    try (CloseableIterator<VectorSchemaRoot> it =
        ds.newScan().columns(COLUMNS).withRowId(true).batches()) {
      while (it.hasNext()) {
        out.addAll(Rows.of(it.next()));
      }
    }
    return out;
  }

  static long lanceLatest(Path dir) {
    try (org.lance.Dataset lance = LanceOracle.open(allocator, dir)) {
      return lance.version();
    }
  }

  static Manifest manifest(Dataset ds) {
    return DatasetInternals.snapshot(ds).manifest();
  }

  @Test
  void appendsTakeFreshIdsAndDeletesKeepThemAsLanceReadsThem() throws Exception {
    Path dir = lanceCreated("stable-rowids-append");
    long appended;
    long deleted;
    try (Dataset ds = ourAppend(dir, 3000, 700)) {
      appended = ds.version();
      Manifest m = manifest(ds);
      assertThat(m.getReaderFeatureFlags() & 2).isEqualTo(2);
      assertThat(m.getWriterFeatureFlags() & 2).isEqualTo(2);
      assertThat(m.getNextRowId()).isEqualTo(2600 + 700);
      // each new fragment is one range from next_row_id: 300, 300 and 100 rows
      List<DataFragment> added =
          DatasetInternals.snapshot(ds).fragments().stream().filter(f -> f.getId() >= 6).toList();
      assertThat(added).hasSize(3);
      long first = 2600;
      for (DataFragment f : added) {
        RowIdSequence seq =
            RowIdSequence.parse(f.getInlineRowIds().toByteArray(), "fragment " + f.getId());
        assertThat(seq.segments()).hasSize(1);
        assertThat(seq.segments().get(0).isRange()).isTrue();
        assertThat(seq.toArray()[0]).isEqualTo(first);
        assertThat(seq.length()).isEqualTo(f.getPhysicalRows());
        first += f.getPhysicalRows();
      }
      // lance-core reads the rows lancelot appended, with the ids lancelot gave them
      List<List<Object>> lance = lanceRows(dir, appended);
      assertThat(ourRows(ds)).isEqualTo(lance);
      for (List<Object> row : lance) {
        long id = (Long) row.get(0);
        long rowId = (Long) row.get(4);
        assertThat(rowId).isEqualTo(id < 3000 ? id : 2600 + id - 3000);
      }

      try (Dataset afterDelete = ds.delete("id % 5 = 1 OR id >= 3650")) {
        deleted = afterDelete.version();
        Manifest dm = manifest(afterDelete);
        assertThat(dm.getReaderFeatureFlags() & 3).isEqualTo(3);
        assertThat(dm.getWriterFeatureFlags() & 3).isEqualTo(3);
        assertThat(dm.getNextRowId()).isEqualTo(3300);
        List<List<Object>> lanceDeleted = lanceRows(dir, deleted);
        assertThat(ourRows(afterDelete)).isEqualTo(lanceDeleted);
        assertThat(lanceDeleted).hasSize(3300 - 660 - 50 + 10);
        assertThat(lanceDeleted).allSatisfy(r -> assertThat((Long) r.get(0) % 5).isNotEqualTo(1));
        // a deleted id no longer answers; a surviving one maps to its address
        var rowIds = DatasetInternals.rowIds(afterDelete);
        assertThat(rowIds.addressOf(1)).isEqualTo(-1);
        assertThat(rowIds.addressOf(2600 + 3)).isNotEqualTo(-1);
        assertThat(rowIds.addressOf(2600 + 1)).isEqualTo(-1);
      }
    }
    // lance-core's append after lancelot's writes continues from lancelot's next_row_id
    lanceWrite(dir, 5000, 100, WriteParams.WriteMode.APPEND);
    long lanceAppended = lanceLatest(dir);
    assertThat(lanceAppended).isEqualTo(deleted + 1);
    try (Dataset ds = Dataset.open(dir.toString())) {
      List<List<Object>> lance = lanceRows(dir, lanceAppended);
      assertThat(ourRows(ds)).isEqualTo(lance);
      List<Long> fresh =
          lance.stream().filter(r -> (Long) r.get(0) >= 5000).map(r -> (Long) r.get(4)).toList();
      assertThat(fresh).hasSize(100);
      assertThat(fresh.get(0)).isEqualTo(3300L);
      assertThat(fresh.get(99)).isEqualTo(3399L);
      assertThat(manifest(ds).getNextRowId()).isEqualTo(3400);
    }
  }

  /**
   * Nearest rows as (id, distance bits, _rowid), by lance-core or by lancelot, probing {@code
   * nprobes} partitions (0: no index, an exact search).
   */
  static List<long[]> nearest(Path dir, Dataset ours, float[] q, String filter, int nprobes)
      throws Exception {
    List<long[]> out = new ArrayList<>();
    if (ours == null) {
      ScanOptions.Builder opts =
          new ScanOptions.Builder()
              .nearest(
                  new org.lance.ipc.Query.Builder()
                      .setColumn("vector")
                      .setKey(q)
                      .setK(10)
                      .setNprobes(Math.max(1, nprobes))
                      .setUseIndex(nprobes > 0)
                      .build())
              .columns(List.of("id"))
              .withRowId(true)
              .prefilter(true);
      if (filter != null) {
        opts.filter(filter);
      }
      try (org.lance.Dataset lance = LanceOracle.open(allocator, dir);
          LanceScanner scanner = lance.newScan(opts.build());
          ArrowReader reader = scanner.scanBatches()) {
        while (reader.loadNextBatch()) {
          addNearest(reader.getVectorSchemaRoot(), out);
        }
      }
      return out;
    }
    var b =
        dev.lancelot.engine.query.VectorQuery.builder("vector")
            .vector(q)
            .k(10)
            .nprobes(Math.max(1, nprobes))
            .useIndex(nprobes > 0)
            .columns("id")
            .withRowId(true);
    if (filter != null) {
      b.filter(filter).prefilter(true);
    }
    try (var r = dev.lancelot.engine.query.VectorSearch.search(ours, b.build())) {
      addNearest(r.rows(), out);
    }
    return out;
  }

  private static void addNearest(VectorSchemaRoot root, List<long[]> out) {
    var ids = (org.apache.arrow.vector.BigIntVector) root.getVector("id");
    var d = (org.apache.arrow.vector.Float4Vector) root.getVector("_distance");
    var rowIds = (org.apache.arrow.vector.UInt8Vector) root.getVector("_rowid");
    for (int i = 0; i < root.getRowCount(); i++) {
      out.add(new long[] {ids.get(i), Float.floatToIntBits(d.get(i)), rowIds.get(i)});
    }
  }

  @Test
  void indexesBuiltOnSuchADatasetStoreIdsAndLanceUsesThem() throws Exception {
    Path dir = lanceCreated("stable-rowids-index");
    try (org.lance.Dataset lance = LanceOracle.open(allocator, dir)) {
      lance.delete("id % 7 = 3");
    }
    // rows 100..299 get new values in new fragments and keep their ids
    try (org.lance.Dataset lance = LanceOracle.open(allocator, dir);
        VectorSchemaRoot batch = ClusteredData.generate(allocator, 100, 200, DIM, 6, 77);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch));
        org.apache.arrow.c.ArrowArrayStream stream =
            org.apache.arrow.c.ArrowArrayStream.allocateNew(allocator)) {
      org.apache.arrow.c.Data.exportArrayStream(allocator, reader, stream);
      lance.mergeInsert(
          new org.lance.merge.MergeInsertParams(List.of("id")).withMatchedUpdateAll(), stream);
    }
    try (Dataset ds = Dataset.open(dir.toString());
        Dataset vector =
            dev.lancelot.engine.index.vector.VectorIndexes.create(
                ds,
                "vector",
                dev.lancelot.engine.index.vector.VectorIndexSpec.of(
                        dev.lancelot.engine.index.IndexType.IVF_FLAT,
                        dev.lancelot.engine.vector.DistanceMetric.L2)
                    .withNumPartitions(6)
                    .withSeed(3));
        Dataset both = BTreeIndexBuilder.build(vector, BTreeBuildParams.of("tenant_id"))) {
      assertThat(manifest(both).getReaderFeatureFlags() & 2).isEqualTo(2);
      try (org.lance.Dataset lance = LanceOracle.open(allocator, dir)) {
        assertThat(lance.getIndexes())
            .extracting(org.lance.index.Index::name)
            .containsExactlyInAnyOrder("vector_idx", "tenant_id_idx");
        assertThat(
                ((Number) lance.getIndexStatistics("tenant_id_idx").get("num_indexed_rows"))
                    .longValue())
            .isEqualTo(both.countRows());
      }
      // Lance searches our segments (which store stable ids) and gets our rows and _rowids;
      // probing every partition, both find the exact answer
      int compared = 0;
      for (float[] q : ClusteredData.queries(8, DIM, 6, 5, 23)) {
        for (String filter : new String[] {null, "tenant_id < 20"}) {
          List<long[]> lance = nearest(dir, null, q, filter, 2);
          List<long[]> ours = nearest(dir, both, q, filter, 2);
          LanceOracle.assertSameUpToTies(hits(ours), hits(lance));
          List<long[]> exact = nearest(dir, both, q, filter, 0);
          LanceOracle.assertSameUpToTies(hits(nearest(dir, both, q, filter, 6)), hits(exact));
          LanceOracle.assertSameUpToTies(hits(nearest(dir, null, q, filter, 6)), hits(exact));
          Map<Long, Long> lanceRowId = new java.util.HashMap<>();
          lance.forEach(r -> lanceRowId.put(r[0], r[2]));
          for (long[] r : ours) {
            if (lanceRowId.containsKey(r[0])) {
              assertThat(r[2]).isEqualTo(lanceRowId.get(r[0]));
              compared++;
            }
          }
        }
      }
      assertThat(compared).isGreaterThan(100);
      // Lance's filtered scans with our BTree = without it = ours
      for (String filter : List.of("tenant_id = 3", "tenant_id < 5", "tenant_id >= 60")) {
        List<List<Object>> lanceRows = new ArrayList<>();
        try (org.lance.Dataset lance = LanceOracle.open(allocator, dir);
            LanceScanner scanner =
                lance.newScan(
                    new ScanOptions.Builder()
                        .columns(COLUMNS)
                        .withRowId(true)
                        .filter(filter)
                        .useScalarIndex(true)
                        .build());
            ArrowReader reader = scanner.scanBatches()) {
          while (reader.loadNextBatch()) {
            lanceRows.addAll(Rows.of(reader.getVectorSchemaRoot()));
          }
        }
        List<List<Object>> ourFiltered = new ArrayList<>();
        try (CloseableIterator<VectorSchemaRoot> it =
            both.newScan().columns(COLUMNS).filter(filter).withRowId(true).batches()) {
          while (it.hasNext()) {
            ourFiltered.addAll(Rows.of(it.next()));
          }
        }
        assertThat(ourFiltered).as(filter).isNotEmpty().isEqualTo(lanceRows);
      }
    }
  }

  static List<LanceOracle.Hit> hits(List<long[]> rows) {
    return rows.stream()
        .map(r -> new LanceOracle.Hit(r[0], Float.intBitsToFloat((int) r[1])))
        .toList();
  }

  @Test
  void appendsRebasedOverAConcurrentAppendTakeIdsAfterIt() throws Exception {
    Path dir = lanceCreated("stable-rowids-rebase");
    try (Dataset stale = Dataset.open(dir.toString())) {
      lanceWrite(dir, 4000, 50, WriteParams.WriteMode.APPEND); // ids 2600..2649
      try (VectorSchemaRoot batch = ClusteredData.generate(allocator, 3000, 20, DIM, 6, 9);
          ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch));
          Dataset ds = stale.append(reader)) {
        assertThat(ds.version()).isEqualTo(stale.version() + 2);
        assertThat(manifest(ds).getNextRowId()).isEqualTo(2670);
        List<List<Object>> lance = lanceRows(dir, ds.version());
        assertThat(ourRows(ds)).isEqualTo(lance);
        assertThat(
                lance.stream()
                    .filter(r -> (Long) r.get(0) >= 3000 && (Long) r.get(0) < 4000)
                    .map(r -> (Long) r.get(4)))
            .containsExactlyElementsOf(
                java.util.stream.LongStream.range(2650, 2670).boxed().toList());
      }
    }
  }

  @Test
  void rowChangesAreAcceptedAndKeepEveryOtherRowsId() throws Exception {
    Path dir = lanceCreated("stable-rowids-changes");
    try (Dataset ds = Dataset.open(dir.toString())) {
      ds.checkWritable();
      List<List<Object>> before = lanceRows(dir, ds.version());
      try (Dataset changed =
          ds.commitRowChanges(Map.of(0L, RoaringBitmap.bitmapOf(1, 2)), List.of())) {
        assertThat(changed.version()).isEqualTo(ds.version() + 1);
        List<List<Object>> expected = new ArrayList<>(before);
        expected.removeIf(r -> (Long) r.get(4) == 1L || (Long) r.get(4) == 2L);
        assertThat(lanceRows(dir, changed.version())).isEqualTo(expected);
        assertThat(ourRows(changed)).isEqualTo(expected);
      }
    }
  }

  @Test
  void createdWithStableRowIdsLanceReadsTheSameIds() throws Exception {
    Path dir = Files.createTempDirectory("stable-rowids-create");
    try (VectorSchemaRoot batch = ClusteredData.generate(allocator, 0, 1000, DIM, 6, 9);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch));
        Dataset ds =
            Dataset.write(
                dir.toString(),
                reader,
                WriteOptions.of(WriteMode.CREATE)
                    .withMaxRowsPerFile(400)
                    .enableStableRowIds(true))) {
      Manifest m = manifest(ds);
      assertThat(m.getReaderFeatureFlags() & 2).isEqualTo(2);
      assertThat(m.getWriterFeatureFlags() & 2).isEqualTo(2);
      assertThat(m.getNextRowId()).isEqualTo(1000);
      List<List<Object>> lance = lanceRows(dir, ds.version());
      assertThat(lance).hasSize(1000);
      assertThat(ourRows(ds)).isEqualTo(lance);
      assertThat(lance).allSatisfy(r -> assertThat(r.get(4)).isEqualTo(r.get(0)));
    }
    try (Dataset appended = ourAppend(dir, 3000, 10)) {
      assertThat(manifest(appended).getNextRowId()).isEqualTo(1010);
    }
    lanceWrite(dir, 5000, 5, WriteParams.WriteMode.APPEND);
    try (Dataset ds = Dataset.open(dir.toString())) {
      List<List<Object>> lance = lanceRows(dir, ds.version());
      assertThat(ourRows(ds)).isEqualTo(lance);
      assertThat(lance.subList(1000, 1015).stream().map(r -> (Long) r.get(4)))
          .containsExactlyElementsOf(
              java.util.stream.LongStream.range(1000, 1015).boxed().toList());
    }
  }

  @Test
  void stableRowIdsCannotBeEnabledOnAnExistingDataset() throws Exception {
    Path dir = Files.createTempDirectory("stable-rowids-late");
    try (VectorSchemaRoot batch = ClusteredData.generate(allocator, 0, 10, DIM, 6, 9);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch))) {
      Dataset.write(dir.toString(), reader, WriteOptions.of(WriteMode.CREATE)).close();
    }
    try (VectorSchemaRoot batch = ClusteredData.generate(allocator, 10, 10, DIM, 6, 9);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch))) {
      assertThatThrownBy(
              () ->
                  Dataset.write(
                      dir.toString(),
                      reader,
                      WriteOptions.of(WriteMode.APPEND).enableStableRowIds(true)))
          .isInstanceOf(LancelotException.class)
          .hasMessageContaining("Cannot enable stable row ids")
          .hasMessageContaining("only be enabled when a dataset is created");
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThat(ds.version()).isEqualTo(1);
      assertThat(manifest(ds).getReaderFeatureFlags() & 2).isZero();
    }
  }
}
