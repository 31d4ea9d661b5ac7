package dev.lancelot.engine.index.scalar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.Scanner;
import dev.lancelot.engine.distributed.ScalarIndexBuild;
import dev.lancelot.engine.distributed.ScalarIndexBuildTask;
import dev.lancelot.engine.distributed.WrittenSegment;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.internal.file.FileProjection;
import dev.lancelot.engine.internal.file.LanceBatchReader;
import dev.lancelot.engine.internal.file.LanceFileReader;
import dev.lancelot.engine.internal.index.IndexInternals;
import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.schema.LanceField;
import dev.lancelot.engine.testing.LanceOracle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.hadoop.conf.Configuration;
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
import org.lance.index.scalar.ZoneMapIndexParams;

/**
 * Bitmap, zone-map and bloom-filter indexes lancelot builds (decision D64), checked both directions
 * against lance-core 7.0.0: lance-core lists them with their kind and row counts and its indexed
 * scans (which load them) return the rows of its full scans; our indexed scans return the rows of
 * our full scans; our files hold the same columns, metadata and cells as the files lance-core
 * builds from the same data; distributed builds and optimize after an append.
 */
@Tag("oracle")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ScalarIndexBuildOracleTest {
  private static final int ROWS = 6000;
  private static final Configuration CONF = new Configuration();
  private BufferAllocator allocator;

  static final List<String> FILTERS =
      List.of(
          "tenant_id = 3",
          "tenant_id IN (97, 98, 99)",
          "tenant_id > 90",
          "tenant_id != 0",
          "tenant_id IS NULL",
          "tenant_id = 5 AND id < 3000",
          "id = 1234",
          "id BETWEEN 2000 AND 2100",
          "id < 300 OR id >= 6900",
          "id IN (5, 4100, 5999, 6500)",
          "NOT (id < 5900)",
          "name = 'user-4003-" + Long.toString(4003L * 2654435761L % 99991, 36) + "'",
          "name IN ('user-13-" + Long.toString(13L * 2654435761L % 99991, 36) + "', 'nobody')",
          "name IS NULL AND id > 5500",
          "name = 'nobody'");

  @BeforeAll
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  void tearDown() {
    allocator.close();
  }

  private void writeDataset(Path dir) {
    LanceOracle.write(allocator, dir, 0, ROWS, 4, 11, WriteParams.WriteMode.CREATE, 2500);
    try (Dataset ds = LanceOracle.open(allocator, dir)) {
      ds.delete("id % 10 = 1");
    }
  }

  private void deleteAndAppend(Path dir) {
    try (Dataset ds = LanceOracle.open(allocator, dir)) {
      ds.delete("id % 10 = 2");
    }
    LanceOracle.write(allocator, dir, ROWS, 1000, 4, 11, WriteParams.WriteMode.APPEND, 2500);
  }

  private static ScalarBuildParams bitmap() {
    return ScalarBuildParams.of(IndexType.BITMAP, "tenant_id").withName("tenant_bitmap");
  }

  private static ScalarBuildParams zonemap() {
    return ScalarBuildParams.of(IndexType.ZONEMAP, "id")
        .withName("id_zonemap")
        .withRowsPerZone(500);
  }

  private static ScalarBuildParams bloom() {
    return ScalarBuildParams.of(IndexType.BLOOM_FILTER, "name")
        .withName("name_bloom")
        .withBloomFilter(400, 0.01);
  }

  private void buildOurs(Path dir) {
    for (ScalarBuildParams p : List.of(bitmap(), zonemap(), bloom())) {
      try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
        ScalarIndexBuilder.build(ds, p).close();
      }
    }
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

  /** Every filter: Lance indexed = Lance full = ours indexed = ours full; who used an index. */
  private void checkScans(Path dir, int expectLanceIndexed) {
    int lanceIndexed = 0;
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
      for (String filter : FILTERS) {
        LanceBTreeScans.Scan lance = LanceBTreeScans.scan(allocator, dir, filter, true);
        TreeSet<Long> full = LanceBTreeScans.scan(allocator, dir, filter, false).addresses();
        assertThat(lance.addresses()).as("lance indexed: %s", filter).isEqualTo(full);
        lanceIndexed += lance.stats() != null && lance.stats().getIndicesLoaded() > 0 ? 1 : 0;
        Scanner indexed = ds.newScan().filter(filter);
        assertThat(ours(indexed)).as("ours indexed: %s", filter).isEqualTo(full);
        assertThat(ours(ds.newScan().filter(filter).useScalarIndex(false)))
            .as("ours full: %s", filter)
            .isEqualTo(full);
        if (!filter.contains(" OR ") && !filter.startsWith("tenant_id IS NULL")) {
          assertThat(indexed.indexUse().used()).as(filter).isTrue();
        }
      }
    }
    assertThat(lanceIndexed).isGreaterThanOrEqualTo(expectLanceIndexed);
  }

  @Test
  void ourIndexesAreListedAndUsedByLanceAndByUs(@TempDir Path dir) {
    writeDataset(dir);
    buildOurs(dir);
    deleteAndAppend(dir);
    try (Dataset lance = LanceOracle.open(allocator, dir)) {
      assertThat(new TreeSet<>(lance.listIndexes()))
          .contains("tenant_bitmap", "id_zonemap", "name_bloom");
      Map<String, String> kinds =
          Map.of("tenant_bitmap", "Bitmap", "id_zonemap", "ZoneMap", "name_bloom", "BloomFilter");
      for (Map.Entry<String, String> e : kinds.entrySet()) {
        Map<String, Object> st = lance.getIndexStatistics(e.getKey());
        assertThat(String.valueOf(st.get("index_type"))).as(e.getKey()).isEqualTo(e.getValue());
        assertThat(((Number) st.get("num_indexed_rows")).longValue())
            .as(e.getKey())
            .isEqualTo(ROWS - ROWS / 10 - ROWS / 10);
        assertThat(((Number) st.get("num_unindexed_fragments")).longValue()).isEqualTo(1);
      }
      assertThat(lance.getIndexStatistics("tenant_bitmap").toString()).contains("num_bitmaps");
    }
    // the bitmap, zone map and bloom filter each answer some filter in Lance
    checkScans(dir, 9);
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
      assertThat(ds.newScan().filter("tenant_id = 3").indexUse().indexes())
          .containsExactly("tenant_bitmap");
      Scanner zone = ds.newScan().filter("id BETWEEN 2000 AND 2100");
      ours(zone);
      assertThat(zone.indexUse().indexes()).containsExactly("id_zonemap");
      assertThat(zone.indexUse().fragmentsSkipped()).isEqualTo(2);
      Scanner point = ds.newScan().filter(FILTERS.get(11));
      assertThat(ours(point)).hasSize(1);
      assertThat(point.indexUse().indexes()).containsExactly("name_bloom");
    }
  }

  @Test
  void ourFilesHoldWhatLancesFilesHold(@TempDir Path dir) throws Exception {
    writeDataset(dir);
    try (Dataset lance = LanceOracle.open(allocator, dir)) {
      lance.createIndex(
          List.of("name"),
          org.lance.index.IndexType.BITMAP,
          Optional.of("l_bitmap"),
          IndexParams.builder().setScalarIndexParams(ScalarIndexParams.create("bitmap")).build(),
          true);
    }
    try (Dataset lance = LanceOracle.open(allocator, dir)) {
      lance.createIndex(
          List.of("id"),
          org.lance.index.IndexType.ZONEMAP,
          Optional.of("l_zonemap"),
          IndexParams.builder()
              .setScalarIndexParams(ZoneMapIndexParams.builder().rowsPerZone(500).build())
              .build(),
          true);
    }
    try (Dataset lance = LanceOracle.open(allocator, dir)) {
      lance.createIndex(
          List.of("name"),
          org.lance.index.IndexType.BLOOM_FILTER,
          Optional.of("l_bloom"),
          IndexParams.builder()
              .setScalarIndexParams(
                  ScalarIndexParams.create(
                      "bloomfilter", "{\"number_of_items\": 400, \"probability\": 0.01}"))
              .build(),
          true);
    }
    for (ScalarBuildParams p :
        List.of(
            ScalarBuildParams.of(IndexType.BITMAP, "name").withName("o_bitmap"),
            zonemap().withName("o_zonemap"),
            bloom().withName("o_bloom"),
            ScalarBuildParams.of(IndexType.BLOOM_FILTER, "id").withName("o_bloom_default"))) {
      try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
        ScalarIndexBuilder.build(ds, p).close();
      }
    }
    try (Dataset lance = LanceOracle.open(allocator, dir)) {
      lance.createIndex(
          List.of("id"),
          org.lance.index.IndexType.BLOOM_FILTER,
          Optional.of("l_bloom_default"),
          IndexParams.builder()
              .setScalarIndexParams(ScalarIndexParams.create("bloomfilter"))
              .build(),
          true);
    }
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
      for (String kind : List.of("bitmap", "zonemap", "bloom", "bloom_default")) {
        IndexSegment theirs = ds.indexes().segments("l_" + kind).get(0);
        IndexSegment mine = ds.indexes().segments("o_" + kind).get(0);
        var t = IndexInternals.proto(theirs);
        var m = IndexInternals.proto(mine);
        assertThat(mine.type()).as(kind).isEqualTo(theirs.type());
        assertThat(m.getIndexDetails()).as(kind).isEqualTo(t.getIndexDetails());
        assertThat(m.getIndexVersion()).as(kind).isEqualTo(t.getIndexVersion());
        assertThat(m.getFieldsList()).as(kind).isEqualTo(t.getFieldsList());
        assertThat(mine.fragments()).as(kind).isEqualTo(theirs.fragments());
        assertThat(mine.files()).as(kind).isEqualTo(theirs.files());
        for (String file : mine.files()) {
          Table a = read(dir.resolve(theirs.directory()).resolve(file));
          Table b = read(dir.resolve(mine.directory()).resolve(file));
          assertThat(b.fields).as(kind).isEqualTo(a.fields);
          assertThat(b.metadata).as(kind).isEqualTo(a.metadata);
          assertThat(b.rows.size()).as(kind).isEqualTo(a.rows.size());
          for (int r = 0; r < a.rows.size(); r++) {
            if (kind.equals("bloom")) {
              // given probability 0.01, lance-core 7.0.0 sizes its filters for its default
              // probability 0.00057 (1,024 bytes for 400 items) while recording 0.01; ours are
              // sized for the probability given (512 bytes), so only zones and NULL flags compare.
              assertThat(b.rows.get(r).subList(0, 4))
                  .as("%s row %d", kind, r)
                  .isEqualTo(a.rows.get(r).subList(0, 4));
              assertThat(((String) a.rows.get(r).get(4)).length() / 2).isEqualTo(1024);
              assertThat(((String) b.rows.get(r).get(4)).length() / 2).isEqualTo(512);
            } else {
              assertThat(b.rows.get(r)).as("%s row %d", kind, r).isEqualTo(a.rows.get(r));
            }
          }
        }
      }
    }
  }

  /** A file's fields (name, type, nullable), schema metadata and rows (bytes as hex). */
  private static final class Table {
    final List<String> fields = new ArrayList<>();
    final List<String> globalBuffers = new ArrayList<>(); // but the file descriptor (0)
    Map<String, String> metadata;
    final List<List<Object>> rows = new ArrayList<>();
  }

  private Table read(Path file) throws Exception {
    Table t = new Table();
    try (InputFile in = HadoopFileIO.local().newInputFile(HadoopFileIO.qualify(file.toString()))) {
      LanceFileReader reader = LanceFileReader.open(in);
      for (LanceField f : reader.schema().fields()) {
        t.fields.add(f.name() + ":" + f.logicalType() + ":" + f.nullable());
      }
      t.metadata = reader.schema().metadata();
      for (int g = 1; g < reader.numGlobalBuffers(); g++) {
        java.nio.ByteBuffer b = reader.readGlobalBuffer(g);
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        t.globalBuffers.add(HexFormat.of().formatHex(bytes));
      }
      int n = (int) reader.numRows();
      if (n == 0) {
        return t;
      }
      try (LanceBatchReader batches =
          reader.read(FileProjection.all(reader.schema()), 0, n, n, allocator)) {
        while (batches.loadNextBatch()) {
          VectorSchemaRoot root = batches.getVectorSchemaRoot();
          for (int i = 0; i < root.getRowCount(); i++) {
            List<Object> row = new ArrayList<>();
            for (FieldVector v : root.getFieldVectors()) {
              Object o = v.getObject(i);
              row.add(o instanceof byte[] b ? HexFormat.of().formatHex(b) : String.valueOf(o));
            }
            t.rows.add(row);
          }
        }
      }
    }
    return t;
  }

  /** Runs the tasks as a cluster would: bytes in, bytes out. */
  private static ScalarIndexBuild.TaskRunner remote(List<Integer> taskCounts) {
    return tasks -> {
      taskCounts.add(tasks.size());
      List<WrittenSegment> out = new ArrayList<>();
      for (ScalarIndexBuildTask t : tasks) {
        ScalarIndexBuildTask task = ScalarIndexBuildTask.fromBytes(t.toBytes());
        dev.lancelot.engine.Dataset at =
            dev.lancelot.engine.Dataset.openCached(task.location(), task.version(), CONF);
        out.add(WrittenSegment.fromBytes(task.run(at).toBytes()));
      }
      return out;
    };
  }

  /**
   * Built in tasks (one segment: these kinds are not cut by rows per segment), then optimized after
   * an append (a second segment over the new fragment): Lance lists every fragment as indexed, and
   * both engines' indexed scans still equal full scans.
   */
  @Test
  void distributedBuildsAndOptimizeAfterAppend(@TempDir Path dir) {
    writeDataset(dir);
    List<Integer> taskCounts = new ArrayList<>();
    for (ScalarBuildParams p : List.of(bitmap(), zonemap(), bloom())) {
      try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
        ScalarIndexBuild.create(ds, p, 1000, remote(taskCounts)).close();
      }
    }
    assertThat(taskCounts).containsExactly(1, 1, 1);
    deleteAndAppend(dir);
    for (String name : List.of("tenant_bitmap", "id_zonemap", "name_bloom")) {
      try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
        assertThat(ScalarIndexBuild.paramsOf(ds, name).type())
            .isEqualTo(ds.indexes().segments(name).get(0).type());
        dev.lancelot.engine.Dataset after =
            ScalarIndexBuild.optimize(ds, name, 1000, remote(taskCounts));
        assertThat(after.indexes().segments(name)).hasSize(2);
        assertThat(ScalarIndexBuild.optimize(after, name, 1000, remote(taskCounts)))
            .isSameAs(after);
        after.close();
      }
    }
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
      assertThat(ScalarIndexBuild.paramsOf(ds, "id_zonemap").rowsPerZone()).isEqualTo(500);
      assertThat(ScalarIndexBuild.paramsOf(ds, "name_bloom").bloomItems()).isEqualTo(400);
      assertThat(ScalarIndexBuild.paramsOf(ds, "name_bloom").bloomProbability()).isEqualTo(0.01);
    }
    try (Dataset lance = LanceOracle.open(allocator, dir)) {
      for (String name : List.of("tenant_bitmap", "id_zonemap", "name_bloom")) {
        Map<String, Object> st = lance.getIndexStatistics(name);
        assertThat(((Number) st.get("num_unindexed_fragments")).longValue()).as(name).isZero();
        assertThat(((Number) st.get("num_indexed_rows")).longValue())
            .as(name)
            .isEqualTo(ROWS - ROWS / 10 - ROWS / 10 + 1000);
      }
    }
    checkScans(dir, 9);
  }

  @Test
  void badRequestsAreRefusedClearly(@TempDir Path dir) {
    writeDataset(dir);
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
      assertThatThrownBy(
              () ->
                  ScalarIndexBuilder.build(
                      ds, ScalarBuildParams.of(IndexType.BLOOM_FILTER, "vector")))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("BLOOM_FILTER index on column \"vector\"")
          .hasMessageContaining("bloom filters on int32");
      assertThatThrownBy(
              () -> ScalarIndexBuilder.build(ds, ScalarBuildParams.of(IndexType.ZONEMAP, "nope")))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("no such column");
      assertThatThrownBy(() -> ScalarBuildParams.of(IndexType.INVERTED, "name"))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("lancelot builds BTREE, BITMAP, ZONEMAP, BLOOM_FILTER");
      assertThat(ScalarBuildParams.parseType("labellist")).isEqualTo(IndexType.LABEL_LIST);
      assertThatThrownBy(
              () ->
                  ScalarIndexBuilder.build(ds, ScalarBuildParams.of(IndexType.LABEL_LIST, "name")))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("is not a list of");
      assertThatThrownBy(() -> ScalarBuildParams.parseType("inverted"))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("does not build them");
      assertThat(ScalarBuildParams.parseType("bloomfilter")).isEqualTo(IndexType.BLOOM_FILTER);
      assertThatThrownBy(() -> bloom().withBloomFilter(10, 1.5))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("between 0 and 1");
      try (dev.lancelot.engine.Dataset v = ScalarIndexBuilder.build(ds, bitmap())) {
        assertThatThrownBy(() -> ScalarIndexBuilder.build(v, bitmap()))
            .isInstanceOf(InvalidInputException.class)
            .hasMessageContaining("already exists");
        assertThatThrownBy(
                () -> ScalarIndexBuild.optimize(v, "nope", 1000, remote(new ArrayList<>())))
            .isInstanceOf(InvalidInputException.class);
      }
    }
  }

  /**
   * Label-list indexes (NULL lists, NULL elements, empty lists): our file holds the same columns,
   * metadata, rows (in another order) and NULL-list buffer as lance-core's for the same data, with
   * the same manifest entry; lance-core lists ours and its indexed containment scans (which load
   * them) return the rows of its full scans, as ours do (rows deleted before and after the build,
   * an appended fragment).
   */
  @Test
  void labelListsAreLancesAndLanceUsesThem(@TempDir Path dir) throws Exception {
    Path same = dir.resolve("same");
    dev.lancelot.engine.expr.ArrayContainsOracleTest.write(allocator, same);
    try (Dataset lance = LanceOracle.open(allocator, same)) {
      lance.delete("id % 10 = 1");
    }
    try (Dataset lance = LanceOracle.open(allocator, same)) {
      lance.createIndex(
          List.of("tags"),
          org.lance.index.IndexType.LABEL_LIST,
          Optional.of("l_labels"),
          IndexParams.builder().setScalarIndexParams(ScalarIndexParams.create("labellist")).build(),
          true);
    }
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(same.toString())) {
      ScalarIndexBuilder.build(
              ds, ScalarBuildParams.of(IndexType.LABEL_LIST, "tags").withName("o_labels"))
          .close();
    }
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(same.toString())) {
      IndexSegment theirs = ds.indexes().segments("l_labels").get(0);
      IndexSegment mine = ds.indexes().segments("o_labels").get(0);
      var t = IndexInternals.proto(theirs);
      var m = IndexInternals.proto(mine);
      assertThat(mine.type()).isEqualTo(IndexType.LABEL_LIST).isEqualTo(theirs.type());
      assertThat(m.getIndexDetails()).isEqualTo(t.getIndexDetails());
      assertThat(m.getIndexVersion()).isEqualTo(t.getIndexVersion());
      assertThat(mine.files()).isEqualTo(theirs.files());
      for (String file : mine.files()) {
        Table a = read(same.resolve(theirs.directory()).resolve(file));
        Table b = read(same.resolve(mine.directory()).resolve(file));
        assertThat(b.fields).isEqualTo(a.fields);
        assertThat(b.metadata).isEqualTo(a.metadata);
        assertThat(b.globalBuffers).isEqualTo(a.globalBuffers);
        // lance-core 7.0.0 writes a label list's keys in no particular order (ours: the NULL key,
        // then ascending); the rows, each a key with its bitmap, are the same
        assertThat(b.rows).hasSameSizeAs(a.rows).containsExactlyInAnyOrderElementsOf(a.rows);
      }
    }

    Path used = dir.resolve("used");
    dev.lancelot.engine.expr.ArrayContainsOracleTest.write(allocator, used);
    try (Dataset lance = LanceOracle.open(allocator, used)) {
      lance.delete("id % 10 = 1");
    }
    for (String column : List.of("tags", "nums")) {
      try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(used.toString())) {
        ScalarIndexBuilder.build(
                ds, ScalarBuildParams.of(IndexType.LABEL_LIST, column).withName(column + "_labels"))
            .close();
      }
    }
    try (Dataset lance = LanceOracle.open(allocator, used)) {
      lance.delete("id % 10 = 2");
    }
    dev.lancelot.engine.expr.ArrayContainsOracleTest.write(
        allocator,
        used,
        dev.lancelot.engine.expr.ArrayContainsOracleTest.ROWS,
        WriteParams.WriteMode.APPEND);
    try (Dataset lance = LanceOracle.open(allocator, used)) {
      assertThat(String.valueOf(lance.getIndexStatistics("tags_labels").get("index_type")))
          .contains("Label");
      // the appended rows: three fragments of 300
      assertThat(
              ((Number) lance.getIndexStatistics("nums_labels").get("num_unindexed_fragments"))
                  .longValue())
          .isEqualTo(3);
    }
    int lanceIndexed = 0;
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(used.toString())) {
      for (String filter : dev.lancelot.engine.expr.ArrayContainsOracleTest.FILTERS) {
        LanceBTreeScans.Scan lance = LanceBTreeScans.scan(allocator, used, filter, true);
        TreeSet<Long> full = LanceBTreeScans.scan(allocator, used, filter, false).addresses();
        assertThat(lance.addresses()).as("lance indexed: %s", filter).isEqualTo(full);
        lanceIndexed += lance.stats() != null && lance.stats().getIndicesLoaded() > 0 ? 1 : 0;
        Scanner indexed = ds.newScan().filter(filter);
        assertThat(ours(indexed)).as("ours indexed: %s", filter).isEqualTo(full);
        assertThat(ours(ds.newScan().filter(filter).useScalarIndex(false)))
            .as("ours full: %s", filter)
            .isEqualTo(full);
      }
    }
    assertThat(lanceIndexed).isGreaterThanOrEqualTo(6);
  }
}
