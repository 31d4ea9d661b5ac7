package dev.lancelot.engine.dataset;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.CompactionOptions;
import dev.lancelot.engine.CompactionResult;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.format.FragmentBitmaps;
import dev.lancelot.engine.internal.format.RowVersions;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexMetadata;
import dev.lancelot.engine.internal.format.proto.TableProtos.Manifest;
import dev.lancelot.engine.internal.table.RowIds;
import dev.lancelot.engine.internal.table.Snapshot;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.ClusteredData;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.testing.Rows;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.lance.WriteParams;
import org.lance.index.DistanceType;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.Query;
import org.lance.ipc.ScanOptions;

/**
 * F7, maintenance on datasets with stable row ids (decision D56): lancelot and lance-core 7.0.0 do
 * the same operation on two copies of one dataset Lance wrote with stable row ids and indexes, and
 * the two results agree: every row's {@code _rowid}, the row id and row version sequences of every
 * fragment, the index segments and what they cover, and what lance-core answers on either copy.
 */
@Tag("oracle")
class StableRowIdsMaintenanceOracleTest {
  /** Every dataset here keeps its row version sequences in its manifests. */
  static final java.util.function.Function<
          dev.lancelot.engine.internal.format.proto.TableProtos.ExternalFile, byte[]>
      INLINE_ONLY =
          file -> {
            throw new AssertionError("a row version sequence in an external file: " + file);
          };

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

  /**
   * A dataset lance-core writes with stable row ids (2,000 rows then 600 appended, fragments of
   * 500), indexed by Lance (IVF_PQ on vector, BTree on tenant_id), rows with id % 7 = 3 deleted;
   * and a copy of it. Returns {ours, theirs}.
   */
  static Path[] twins(String name) throws IOException {
    Path ours = Files.createTempDirectory(name + "-ours");
    write(ours, 0, 2000, WriteParams.WriteMode.CREATE);
    write(ours, 2000, 600, WriteParams.WriteMode.APPEND);
    LanceOracle.createIvfPq(allocator, ours, "vector", 4, 2, DistanceType.L2);
    LanceOracle.createBTree(allocator, ours, "tenant_id");
    try (org.lance.Dataset lance = LanceOracle.open(allocator, ours)) {
      lance.delete("id % 7 = 3");
    }
    Path theirs = Files.createTempDirectory(name + "-theirs");
    copyTree(ours, theirs);
    return new Path[] {ours, theirs};
  }

  static void write(Path dir, long first, int rows, WriteParams.WriteMode mode) {
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

  static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path p : files.toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
  }

  /** Lance's scan of the latest version: the columns plus {@code _rowid}, in scan order. */
  static List<List<Object>> lanceRows(Path dir, String filter) throws Exception {
    return lanceRows(dir, COLUMNS, filter);
  }

  static List<List<Object>> lanceRows(Path dir, List<String> columns, String filter)
      throws Exception {
    List<List<Object>> out = new ArrayList<>();
    try (org.lance.Dataset ds = LanceOracle.open(allocator, dir)) {
      ScanOptions.Builder opts = new ScanOptions.Builder().columns(columns).withRowId(true);
      if (filter != null) {
        opts.filter(filter);
      }
      try (LanceScanner scanner = ds.newScan(opts.build());
          ArrowReader reader = scanner.scanBatches()) {
        while (reader.loadNextBatch()) {
          out.addAll(Rows.of(reader.getVectorSchemaRoot()));
        }
      }
    }
    return out;
  }

  static List<List<Object>> ourRows(Path dir) {
    return ourRows(dir, COLUMNS);
  }

  static List<List<Object>> ourRows(Path dir, List<String> columns) {
    List<List<Object>> out = new ArrayList<>();
    try (Dataset ds = Dataset.open(dir.toString());
        CloseableIterator<VectorSchemaRoot> it =
            ds.newScan().columns(columns).withRowId(true).batches()) {
      while (it.hasNext()) {
        out.addAll(Rows.of(it.next()));
      }
    }
    return out;
  }

  /** Lance's nearest rows on the latest version: id, distance bits, {@code _rowid}. */
  static List<List<Long>> lanceNearest(Path dir, float[] q, String filter) throws Exception {
    List<List<Long>> out = new ArrayList<>();
    try (org.lance.Dataset ds = LanceOracle.open(allocator, dir)) {
      Query query =
          new Query.Builder()
              .setColumn("vector")
              .setKey(q)
              .setK(10)
              .setNprobes(2)
              .setRefineFactor(2)
              .build();
      ScanOptions.Builder opts =
          new ScanOptions.Builder()
              .nearest(query)
              .columns(List.of("id"))
              .withRowId(true)
              .prefilter(true);
      if (filter != null) {
        opts.filter(filter);
      }
      try (LanceScanner scanner = ds.newScan(opts.build());
          ArrowReader reader = scanner.scanBatches()) {
        while (reader.loadNextBatch()) {
          VectorSchemaRoot root = reader.getVectorSchemaRoot();
          BigIntVector ids = (BigIntVector) root.getVector("id");
          Float4Vector d = (Float4Vector) root.getVector("_distance");
          UInt8Vector rowIds = (UInt8Vector) root.getVector("_rowid");
          for (int i = 0; i < root.getRowCount(); i++) {
            out.add(List.of(ids.get(i), (long) Float.floatToIntBits(d.get(i)), rowIds.get(i)));
          }
        }
      }
    }
    return out;
  }

  /** What a fragment says of its rows: id, physical rows, row ids, created and updated versions. */
  static List<Object> describe(Snapshot s, DataFragment f) {
    String where = s.entry().location();
    long[] created = RowVersions.of(f, RowVersions.Kind.CREATED, where, INLINE_ONLY);
    long[] updated = RowVersions.of(f, RowVersions.Kind.LAST_UPDATED, where, INLINE_ONLY);
    RowIds ids = new RowIds(s, null, x -> new org.roaringbitmap.RoaringBitmap());
    return List.of(
        f.getId(),
        f.getPhysicalRows(),
        Arrays.toString(ids.sequence(f).toArray()),
        Arrays.toString(created),
        Arrays.toString(updated));
  }

  /** The state two copies must agree on after the same operation. */
  static Map<String, Object> state(Path dir) {
    Map<String, Object> out = new LinkedHashMap<>();
    try (Dataset ds = Dataset.open(dir.toString())) {
      Snapshot s = DatasetInternals.snapshot(ds);
      Manifest m = s.manifest();
      out.put("next_row_id", m.getNextRowId());
      out.put("reader flags", m.getReaderFeatureFlags());
      List<Object> fragments = new ArrayList<>();
      s.fragments().forEach(f -> fragments.add(describe(s, f)));
      out.put("fragments", fragments);
      List<Object> indexes = new ArrayList<>();
      for (IndexMetadata i : s.indices()) {
        indexes.add(List.of(i.getName(), i.getUuid().getUuid(), FragmentBitmaps.of(i).toString()));
      }
      out.put("indexes", indexes);
    }
    return out;
  }

  /** The two copies agree on {@link #state}, compared part by part for readable failures. */
  static void assertSameState(Path ours, Path theirs) {
    Map<String, Object> a = state(ours);
    Map<String, Object> b = state(theirs);
    assertThat(a.keySet()).isEqualTo(b.keySet());
    for (String key : a.keySet()) {
      if (a.get(key) instanceof List<?> la && b.get(key) instanceof List<?> lb) {
        assertThat(la.size()).as("number of %s", key).isEqualTo(lb.size());
        for (int i = 0; i < la.size(); i++) {
          assertThat(la.get(i)).as("%s %d", key, i).isEqualTo(lb.get(i));
        }
      } else {
        assertThat(a.get(key)).as(key).isEqualTo(b.get(key));
      }
    }
  }

  /** lance-core's answers on our copy are its answers on its own copy. */
  static void lanceAnswersAlike(Path ours, Path theirs) throws Exception {
    assertThat(lanceRows(ours, null)).isEqualTo(lanceRows(theirs, null));
    assertThat(ourRows(ours)).isEqualTo(lanceRows(theirs, null));
    assertThat(lanceRows(ours, "tenant_id < 3")).isEqualTo(lanceRows(theirs, "tenant_id < 3"));
    for (float[] q : ClusteredData.queries(6, DIM, 6, 5, 41)) {
      for (String filter : new String[] {null, "tenant_id < 20"}) {
        assertThat(lanceNearest(ours, q, filter))
            .as("filter %s", filter)
            .isEqualTo(lanceNearest(theirs, q, filter));
      }
    }
  }

  @Test
  void compactionKeepsEveryRowIdAsLanceDoes() throws Exception {
    Path[] twin = twins("stable-compact");
    List<List<Object>> before = lanceRows(twin[1], null);
    try (Dataset ds = Dataset.open(twin[0].toString())) {
      CompactionResult r = ds.compact(CompactionOptions.defaults());
      assertThat(r.fragmentsRemoved()).isEqualTo(6);
    }
    try (org.lance.Dataset lance = LanceOracle.open(allocator, twin[1])) {
      lance.compact();
    }
    assertSameState(twin[0], twin[1]);
    assertThat(lanceRows(twin[0], null)).isEqualTo(before);
    lanceAnswersAlike(twin[0], twin[1]);
  }

  static VectorSchemaRoot twice(long fragmentId, VectorSchemaRoot in, BufferAllocator a) {
    BigIntVector id = (BigIntVector) in.getVector("id");
    BigIntVector out = new BigIntVector("twice", a);
    int n = in.getRowCount();
    out.allocateNew(n);
    for (int i = 0; i < n; i++) {
      out.set(i, id.get(i) * 2);
    }
    out.setValueCount(n);
    return new VectorSchemaRoot(List.of(out.getField()), List.of(out), n);
  }

  @Test
  void configAndSchemaChangesKeepEveryRowIdAsLanceDoes() throws Exception {
    Path[] twin = twins("stable-schema");
    try (Dataset ds = Dataset.open(twin[0].toString())) {
      ds.updateConfig(Map.of("k", java.util.Optional.of("v")))
          .addColumns(
              List.of(
                  org.apache.arrow.vector.types.pojo.Field.nullable(
                      "twice", new org.apache.arrow.vector.types.pojo.ArrowType.Int(64, true))),
              List.of("id"),
              StableRowIdsMaintenanceOracleTest::twice)
          .dropColumns(List.of("name"))
          .close();
    }
    try (org.lance.Dataset lance = LanceOracle.open(allocator, twin[1])) {
      lance.updateConfig(Map.of("k", "v"));
      lance.addColumns(
          new org.lance.schema.SqlExpressions.Builder().withExpression("twice", "id * 2").build(),
          java.util.Optional.empty());
      lance.dropColumns(List.of("name"));
    }
    assertSameState(twin[0], twin[1]);
    List<String> columns = List.of("id", "tenant_id", "twice");
    assertThat(lanceRows(twin[0], columns, null)).isEqualTo(lanceRows(twin[1], columns, null));
    assertThat(ourRows(twin[0], columns)).isEqualTo(lanceRows(twin[1], columns, null));
  }

  @Test
  void overwriteGivesFreshIdsAfterEveryIdUsedAsLanceDoes() throws Exception {
    Path[] twin = twins("stable-overwrite");
    try (VectorSchemaRoot batch = ClusteredData.generate(allocator, 5000, 700, DIM, 6, 8);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch))) {
      Dataset.write(
              twin[0].toString(),
              reader,
              dev.lancelot.engine.WriteOptions.of(dev.lancelot.engine.WriteMode.OVERWRITE)
                  .withMaxRowsPerFile(500))
          .close();
    }
    try (VectorSchemaRoot batch = ClusteredData.generate(allocator, 5000, 700, DIM, 6, 8)) {
      org.lance.Dataset.write()
          .allocator(allocator)
          .reader(ArrowStreams.readerOf(allocator, List.of(batch)))
          .uri(twin[1].toString())
          .mode(WriteParams.WriteMode.OVERWRITE)
          .maxRowsPerFile(500)
          .execute()
          .close();
    }
    assertSameState(twin[0], twin[1]);
    assertThat(state(twin[0]).get("next_row_id")).isEqualTo(2600L + 700);
    assertThat(lanceRows(twin[0], null)).isEqualTo(lanceRows(twin[1], null));
  }

  @Test
  void restoreKeepsTheRestoredIdsAndNeverReusesAnId() throws Exception {
    Path[] twin = twins("stable-restore");
    long deleted;
    try (org.lance.Dataset lance = LanceOracle.open(allocator, twin[0])) {
      deleted = lance.version();
    }
    for (Path dir : twin) {
      write(dir, 3000, 100, WriteParams.WriteMode.APPEND); // ids 2600..2699
    }
    try (Dataset ds = Dataset.open(twin[0].toString())) {
      ds.restore(deleted).close();
    }
    try (org.lance.Dataset lance = LanceOracle.open(allocator, twin[1])) {
      lance.checkoutVersion(deleted).restore();
    }
    Map<String, Object> ours = state(twin[0]);
    Map<String, Object> theirs = state(twin[1]);
    assertThat(ours.get("fragments")).isEqualTo(theirs.get("fragments"));
    assertThat(ours.get("indexes")).isEqualTo(theirs.get("indexes"));
    assertThat(lanceRows(twin[0], null)).isEqualTo(lanceRows(twin[1], null));
    // Lance restores next_row_id with the old manifest (2600); lancelot keeps it past the ids the
    // appended rows took, so appends after the restore take ids no row ever had
    assertThat(theirs.get("next_row_id")).isEqualTo(2600L);
    assertThat(ours.get("next_row_id")).isEqualTo(2700L);
    write(twin[0], 4000, 10, WriteParams.WriteMode.APPEND);
    assertThat(lanceRows(twin[0], "id >= 4000").stream().map(r -> r.get(4)).toList())
        .containsExactlyElementsOf(java.util.stream.LongStream.range(2700, 2710).boxed().toList());
  }

  /** Lance's rows of {@code dir} (the columns plus {@code _rowid}) by the id column. */
  static Map<Long, List<Object>> lanceRowsById(Path dir) throws Exception {
    Map<Long, List<Object>> out = new java.util.TreeMap<>();
    lanceRows(dir, null).forEach(r -> out.put((Long) r.get(0), r));
    return out;
  }

  /** Rows whose id is in {@code ids}: the rows an upsert inserted, whose fresh ids may differ. */
  static void assertSameRowsAndIdsExceptFreshOnes(Path ours, Path theirs, List<Long> fresh)
      throws Exception {
    Map<Long, List<Object>> a = lanceRowsById(ours);
    Map<Long, List<Object>> b = lanceRowsById(theirs);
    assertThat(a.keySet()).isEqualTo(b.keySet());
    List<Object> freshA = new ArrayList<>();
    List<Object> freshB = new ArrayList<>();
    for (long id : a.keySet()) {
      if (fresh.contains(id)) {
        assertThat(a.get(id).subList(0, 4)).isEqualTo(b.get(id).subList(0, 4));
        freshA.add(a.get(id).get(4));
        freshB.add(b.get(id).get(4));
      } else {
        assertThat(a.get(id)).as("row %d", id).isEqualTo(b.get(id));
      }
    }
    assertThat(freshA).containsExactlyInAnyOrderElementsOf(freshB);
  }

  @Test
  void rowChangesKeepTheIdsOfTheRowsTheyRewriteAsLanceMergeInsertDoes() throws Exception {
    Path[] twin = twins("stable-update");
    // an upsert of ids 100..299 with new data: live rows are updated (they keep their ids), the
    // deleted ones (id % 7 = 3) are inserted anew (fresh ids)
    List<Long> fresh = new ArrayList<>();
    try (Dataset ds = Dataset.open(twin[0].toString());
        VectorSchemaRoot batch = ClusteredData.generate(allocator, 100, 200, DIM, 6, 77)) {
      Map<Long, Long> addressOf = new java.util.HashMap<>();
      try (CloseableIterator<VectorSchemaRoot> it =
          ds.newScan()
              .columns(List.of("id"))
              .filter("id >= 100 AND id < 300")
              .withRowAddress(true)
              .batches()) {
        while (it.hasNext()) {
          VectorSchemaRoot b = it.next();
          for (int i = 0; i < b.getRowCount(); i++) {
            addressOf.put(
                ((BigIntVector) b.getVector("id")).get(i),
                ((UInt8Vector) b.getVector("_rowaddr")).get(i));
          }
        }
      }
      long[] sources = new long[200];
      Map<Long, org.roaringbitmap.RoaringBitmap> deletes = new java.util.HashMap<>();
      for (int i = 0; i < 200; i++) {
        Long address = addressOf.get(100L + i);
        if (address == null) {
          sources[i] = dev.lancelot.engine.FragmentMetadata.NEW_ROW;
          fresh.add(100L + i);
        } else {
          sources[i] = address;
          deletes
              .computeIfAbsent(address >>> 32, f -> new org.roaringbitmap.RoaringBitmap())
              .add((int) (long) address);
        }
      }
      assertThat(fresh).hasSize(29);
      List<dev.lancelot.engine.FragmentMetadata> written =
          dev.lancelot.engine.distributed.DistributedWrite.writeFragments(
              ds.location(),
              null,
              ds.lanceSchema(),
              List.of(batch).iterator(),
              dev.lancelot.engine.WriteOptions.of(dev.lancelot.engine.WriteMode.APPEND));
      assertThat(written).hasSize(1);
      ds.commitRowChanges(deletes, List.of(written.get(0).withSourceRows(sources))).close();
    }
    try (org.lance.Dataset lance = LanceOracle.open(allocator, twin[1]);
        VectorSchemaRoot batch = ClusteredData.generate(allocator, 100, 200, DIM, 6, 77);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch));
        org.apache.arrow.c.ArrowArrayStream stream =
            org.apache.arrow.c.ArrowArrayStream.allocateNew(allocator)) {
      org.apache.arrow.c.Data.exportArrayStream(allocator, reader, stream);
      lance.mergeInsert(
          new org.lance.merge.MergeInsertParams(List.of("id"))
              .withMatchedUpdateAll()
              .withNotMatched(org.lance.merge.MergeInsertParams.WhenNotMatched.InsertAll),
          stream);
    }
    Map<String, Object> ours = state(twin[0]);
    Map<String, Object> theirs = state(twin[1]);
    assertThat(ours.get("next_row_id")).isEqualTo(2600L + 29).isEqualTo(theirs.get("next_row_id"));
    assertThat(ours.get("indexes")).isEqualTo(theirs.get("indexes"));
    assertSameRowsAndIdsExceptFreshOnes(twin[0], twin[1], fresh);
    assertThat(ourRows(twin[0])).isEqualTo(lanceRows(twin[0], null));
    assertNearestAlike(twin[0], twin[1], fresh);

    // then both compact: every row keeps its id, searches still agree
    try (Dataset ds = Dataset.open(twin[0].toString())) {
      ds.compact(CompactionOptions.defaults()).dataset().close();
    }
    try (org.lance.Dataset lance = LanceOracle.open(allocator, twin[1])) {
      lance.compact();
    }
    assertSameRowsAndIdsExceptFreshOnes(twin[0], twin[1], fresh);
    assertThat(state(twin[0]).get("indexes")).isEqualTo(state(twin[1]).get("indexes"));
    assertNearestAlike(twin[0], twin[1], fresh);
  }

  /**
   * Vector search on our copy, by lance-core and by lancelot, returns what lance-core returns on
   * its own copy (the {@code _rowid}s of rows the upsert inserted aside).
   */
  static void assertNearestAlike(Path ours, Path theirs, List<Long> fresh) throws Exception {
    try (Dataset ds = Dataset.open(ours.toString())) {
      for (float[] q : ClusteredData.queries(6, DIM, 6, 5, 41)) {
        List<List<Long>> expected = lanceNearest(theirs, q, null);
        List<List<Long>> lanceOnOurs = lanceNearest(ours, q, null);
        assertThat(lanceOnOurs.size()).isEqualTo(expected.size());
        for (int i = 0; i < expected.size(); i++) {
          int n = fresh.contains(expected.get(i).get(0)) ? 2 : 3;
          assertThat(lanceOnOurs.get(i).subList(0, n)).isEqualTo(expected.get(i).subList(0, n));
        }
        List<long[]> mine = StableRowIdsOracleTest.ourNearest(ds, q, 10, 2, null);
        LanceOracle.assertSameUpToTies(
            StableRowIdsOracleTest.hits(mine),
            expected.stream()
                .map(
                    r -> new LanceOracle.Hit(r.get(0), Float.intBitsToFloat((int) (long) r.get(1))))
                .toList());
      }
    }
  }

  @Test
  void aNewRowReplacesOnlyARowTheChangeDeletesAndOnlyOnce() throws Exception {
    Path[] twin = twins("stable-bad-source");
    try (Dataset ds = Dataset.open(twin[0].toString());
        VectorSchemaRoot batch = ClusteredData.generate(allocator, 5000, 2, DIM, 6, 77)) {
      dev.lancelot.engine.FragmentMetadata f =
          dev.lancelot.engine.distributed.DistributedWrite.writeFragments(
                  ds.location(),
                  null,
                  ds.lanceSchema(),
                  List.of(batch).iterator(),
                  dev.lancelot.engine.WriteOptions.of(dev.lancelot.engine.WriteMode.APPEND))
              .get(0);
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () ->
                  ds.commitRowChanges(
                      Map.of(0L, org.roaringbitmap.RoaringBitmap.bitmapOf(0)),
                      List.of(f.withSourceRows(new long[] {0L, 0L}))))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("replaces row address 0")
          .hasMessageContaining("only once");
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () ->
                  ds.commitRowChanges(
                      Map.of(),
                      List.of(
                          f.withSourceRows(
                              new long[] {5L, dev.lancelot.engine.FragmentMetadata.NEW_ROW}))))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("replaces row address 5, which the change does not delete");
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> f.withSourceRows(new long[] {1}))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("one source address per row");
      // a marked fragment appended instead of committed as a row change
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () ->
                  dev.lancelot.engine.distributed.DistributedWrite.commit(
                      ds.location(),
                      null,
                      ds.lanceSchema(),
                      List.of(
                          f.withSourceRows(
                              new long[] {
                                dev.lancelot.engine.FragmentMetadata.NEW_ROW,
                                dev.lancelot.engine.FragmentMetadata.NEW_ROW
                              })),
                      dev.lancelot.engine.WriteMode.APPEND,
                      ds.version()))
          .isInstanceOf(dev.lancelot.engine.InvalidInputException.class)
          .hasMessageContaining("already carries row ids")
          .hasMessageContaining("Dataset.commitRowChanges");
      try (Stream<Path> files = Files.list(twin[0].resolve("_deletions"))) {
        assertThat(files.count()).as("no deletion file left behind").isEqualTo(6);
      }
      try (Dataset latest = ds.checkoutLatest()) {
        assertThat(latest.version()).isEqualTo(ds.version());
      }
    }
  }

  /** Without stable row ids too, a fragment marked for a row change is refused as an append. */
  @Test
  void aMarkedFragmentIsRefusedAsAnAppendWithoutStableRowIds() throws Exception {
    String location = Files.createTempDirectory("marked-append").resolve("t").toString();
    try (VectorSchemaRoot first = ClusteredData.generate(allocator, 0, 4, DIM, 6, 78);
        org.apache.arrow.vector.ipc.ArrowReader reader =
            dev.lancelot.engine.testing.ArrowStreams.readerOf(allocator, List.of(first));
        Dataset ds =
            Dataset.write(
                location,
                reader,
                dev.lancelot.engine.WriteOptions.of(dev.lancelot.engine.WriteMode.CREATE));
        VectorSchemaRoot batch = ClusteredData.generate(allocator, 4, 2, DIM, 6, 79)) {
      assertThat(ds.stableRowIds()).isFalse();
      dev.lancelot.engine.FragmentMetadata f =
          dev.lancelot.engine.distributed.DistributedWrite.writeFragments(
                  location,
                  null,
                  ds.lanceSchema(),
                  List.of(batch).iterator(),
                  dev.lancelot.engine.WriteOptions.of(dev.lancelot.engine.WriteMode.APPEND))
              .get(0);
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () ->
                  dev.lancelot.engine.distributed.DistributedWrite.commit(
                      location,
                      null,
                      ds.lanceSchema(),
                      List.of(f.withSourceRows(new long[] {0L, 1L})),
                      dev.lancelot.engine.WriteMode.APPEND,
                      ds.version()))
          .isInstanceOf(dev.lancelot.engine.InvalidInputException.class)
          .hasMessageContaining("already carries row ids");
      try (Dataset latest = ds.checkoutLatest()) {
        assertThat(latest.version()).isEqualTo(ds.version());
        assertThat(latest.countRows()).isEqualTo(4);
      }
    }
  }

  @Test
  void aDatasetLancelotWroteIsCompactedWithItsIdsVersionsAndIndexAsLanceReadsThem()
      throws Exception {
    Path dir = Files.createTempDirectory("stable-own-compact");
    try (VectorSchemaRoot first = ClusteredData.generate(allocator, 0, 1000, DIM, 6, 5);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(first))) {
      Dataset.write(
              dir.toString(),
              reader,
              dev.lancelot.engine.WriteOptions.of(dev.lancelot.engine.WriteMode.CREATE)
                  .withMaxRowsPerFile(300)
                  .enableStableRowIds(true))
          .close();
    }
    try (VectorSchemaRoot more = ClusteredData.generate(allocator, 1000, 500, DIM, 6, 5);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(more))) {
      Dataset.write(
              dir.toString(),
              reader,
              dev.lancelot.engine.WriteOptions.of(dev.lancelot.engine.WriteMode.APPEND)
                  .withMaxRowsPerFile(300))
          .close();
    }
    List<List<Object>> before;
    List<List<Object>> filteredBefore;
    try (Dataset ds = Dataset.open(dir.toString());
        Dataset indexed =
            dev.lancelot.engine.index.scalar.BTreeIndexBuilder.build(
                ds, dev.lancelot.engine.index.scalar.BTreeBuildParams.of("tenant_id"));
        Dataset deleted = indexed.delete("id % 5 = 0")) {
      before = lanceRows(dir, null);
      filteredBefore = lanceRows(dir, "tenant_id < 2");
      assertThat(before).hasSize(1200);
      CompactionResult r = deleted.compact(CompactionOptions.defaults());
      assertThat(r.fragmentsAdded()).isEqualTo(1);
      r.dataset().close();
    }
    assertThat(lanceRows(dir, null)).isEqualTo(before);
    assertThat(lanceRows(dir, "tenant_id < 2")).isEqualTo(filteredBefore).isNotEmpty();
    assertThat(ourRows(dir)).isEqualTo(before);
    try (Dataset ds = Dataset.open(dir.toString())) {
      Snapshot s = DatasetInternals.snapshot(ds);
      DataFragment f = s.fragments().get(0);
      long[] created = RowVersions.of(f, RowVersions.Kind.CREATED, "test", INLINE_ONLY);
      long[] expected = new long[1200];
      for (int i = 0; i < 1200; i++) {
        expected[i] = i < 800 ? 1 : 2; // rows of the create (version 1), then of the append
      }
      assertThat(created).isEqualTo(expected);
      assertThat(RowVersions.of(f, RowVersions.Kind.LAST_UPDATED, "test", INLINE_ONLY))
          .isEqualTo(expected);
      assertThat(FragmentBitmaps.of(s.indices().get(0)).toArray()).containsExactly((int) f.getId());
    }
  }
}
