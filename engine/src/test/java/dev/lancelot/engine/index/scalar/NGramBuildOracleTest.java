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
import dev.lancelot.engine.io.ReadCounters;
import dev.lancelot.engine.schema.LanceField;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.LanceOracle;
import java.nio.charset.StandardCharsets;
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
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
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

/**
 * N-gram indexes lancelot builds (decision D69), checked both directions against lance-core 7.0.0:
 * our file holds the rows (tokens and serialized posting lists) lance-core's holds for the same
 * data, every Unicode character folded as Lance folds it; lance-core lists ours, and its indexed
 * substring scans (which load it) return the rows of its full scans, as ours do, after rows deleted
 * before and after the build, an append, a distributed build and an optimize.
 */
@Tag("oracle")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NGramBuildOracleTest {
  private static final int ROWS = 6000;
  private static final Configuration CONF = new Configuration();
  private BufferAllocator allocator;

  /** Substring filters on the standard data's name column ("user-<id>-<base 36>"). */
  static final List<String> FILTERS =
      List.of(
          "contains(name, 'user-123')",
          "contains(name, '1io8')",
          "contains(name, 'USER-5')",
          "contains(name, 'xyzq')",
          "contains(name, 'user-13') AND id < 5000",
          "contains(name, '4567') OR contains(name, '5678')",
          "name LIKE '%-4567-%'",
          "name LIKE 'user-12_4-%'",
          "name LIKE 'user-6%'");

  @BeforeAll
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  void tearDown() {
    allocator.close();
  }

  private static ScalarBuildParams ngram() {
    return ScalarBuildParams.of(IndexType.NGRAM, "name").withName("name_ngram");
  }

  private void lanceBuild(Path dir, String column, String name) {
    try (Dataset lance = LanceOracle.open(allocator, dir)) {
      lance.createIndex(
          List.of(column),
          org.lance.index.IndexType.NGRAM,
          Optional.of(name),
          IndexParams.builder().setScalarIndexParams(ScalarIndexParams.create("ngram")).build(),
          true);
    }
  }

  private void writeTexts(Path dir, List<String> texts, int rowsPerFile) {
    Schema schema =
        new Schema(
            List.of(
                new Field("k", FieldType.nullable(new ArrowType.Int(32, true)), null),
                new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      IntVector k = (IntVector) root.getVector("k");
      VarCharVector s = (VarCharVector) root.getVector("s");
      for (int i = 0; i < texts.size(); i++) {
        k.setSafe(i, i);
        if (texts.get(i) == null) {
          s.setNull(i);
        } else {
          s.setSafe(i, texts.get(i).getBytes(StandardCharsets.UTF_8));
        }
      }
      root.setRowCount(texts.size());
      Dataset.write()
          .allocator(allocator)
          .reader(ArrowStreams.readerOf(allocator, List.of(root)))
          .uri(dir.toString())
          .mode(WriteParams.WriteMode.CREATE)
          .maxRowsPerFile(rowsPerFile)
          .execute()
          .close();
    }
  }

  /** Lance's and our builds over the same data: same manifest entry, same rows, byte for byte. */
  private void assertSameFiles(Path dir, String column) throws Exception {
    lanceBuild(dir, column, "l_ngram");
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
      ScalarIndexBuilder.build(
              ds, ScalarBuildParams.of(IndexType.NGRAM, column).withName("o_ngram"))
          .close();
    }
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
      IndexSegment theirs = ds.indexes().segments("l_ngram").get(0);
      IndexSegment mine = ds.indexes().segments("o_ngram").get(0);
      var t = IndexInternals.proto(theirs);
      var m = IndexInternals.proto(mine);
      assertThat(mine.type()).isEqualTo(IndexType.NGRAM).isEqualTo(theirs.type());
      assertThat(m.getIndexDetails()).isEqualTo(t.getIndexDetails());
      assertThat(m.getIndexVersion()).isEqualTo(t.getIndexVersion());
      assertThat(m.getFieldsList()).isEqualTo(t.getFieldsList());
      assertThat(mine.fragments()).isEqualTo(theirs.fragments());
      assertThat(mine.files()).isEqualTo(theirs.files()).containsExactly("ngram_postings.lance");
      String file = mine.files().get(0);
      Table a = read(dir.resolve(theirs.directory()).resolve(file));
      Table b = read(dir.resolve(mine.directory()).resolve(file));
      assertThat(b.fields).isEqualTo(a.fields);
      assertThat(b.metadata).isEqualTo(a.metadata);
      assertThat(a.rows).isNotEmpty();
      assertThat(b.rows).hasSameSizeAs(a.rows);
      for (int r = 0; r < a.rows.size(); r++) {
        assertThat(b.rows.get(r)).as("row %d", r).isEqualTo(a.rows.get(r));
      }
    }
  }

  /**
   * Mixed case, accents, ligatures, letters without a decomposition, full-width forms, texts
   * shorter than a trigram, NULLs, rows deleted before the build, several fragments.
   */
  @Test
  void ourFileHoldsLancesRows(@TempDir Path dir) throws Exception {
    List<String> texts = new ArrayList<>();
    List<String> words =
        List.of(
            "Hello World",
            "café CAFÉ crème",
            "ab",
            "",
            "Straße in Köln",
            "ÆON øre Łódź",
            "x1y2z3",
            "İstanbul",
            "ﬁne ﬂow",
            "ＡＢＣ１２３",
            "½ cup, ℃",
            "日本語テキスト abc",
            "ǅemal ǈ ĳssel");
    for (int i = 0; i < 3000; i++) {
      texts.add(
          i % 17 == 5
              ? null
              : words.get(i % words.size()) + " " + Long.toString(i * 2654435761L % 99991, 36));
    }
    writeTexts(dir, texts, 700);
    try (Dataset lance = LanceOracle.open(allocator, dir)) {
      lance.delete("k % 10 = 3");
    }
    assertSameFiles(dir, "s");
  }

  /**
   * Every character of the Basic Multilingual Plane and the next one (but surrogates), alone
   * between letters: lance-core's tokens for each row are ours, so our lower-casing and ASCII
   * folding are Lance's for every character, those without a folding included.
   */
  @Test
  void everyCharacterFoldsAsLanceFoldsIt(@TempDir Path dir) throws Exception {
    List<String> texts = new ArrayList<>();
    for (int c = 0x20; c <= 0x1FFFF; c++) {
      if (Character.isDefined(c) && !(c >= 0xD800 && c <= 0xDFFF)) {
        texts.add("zz" + new String(Character.toChars(c)) + "zz");
      }
    }
    writeTexts(dir, texts, 1 << 20);
    assertSameFiles(dir, "s");
  }

  private void writeStandard(Path dir) {
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

  /**
   * Every filter: Lance indexed = Lance full = ours indexed = ours full; Lance used the index for
   * contains().
   */
  private void checkScans(Path dir) {
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
      for (String filter : FILTERS) {
        LanceBTreeScans.Scan lance = LanceBTreeScans.scan(allocator, dir, filter, true);
        TreeSet<Long> full = LanceBTreeScans.scan(allocator, dir, filter, false).addresses();
        assertThat(lance.addresses()).as("lance indexed: %s", filter).isEqualTo(full);
        if (filter.startsWith("contains")) {
          // lance-core 7.0.0 uses n-gram indexes for contains() (not for LIKE)
          assertThat(lance.stats()).as(filter).isNotNull();
          assertThat(lance.stats().getIndicesLoaded()).as("lance loads: %s", filter).isPositive();
        }
        Scanner indexed = ds.newScan().filter(filter);
        assertThat(ours(indexed)).as("ours indexed: %s", filter).isEqualTo(full);
        assertThat(ours(ds.newScan().filter(filter).useScalarIndex(false)))
            .as("ours full: %s", filter)
            .isEqualTo(full);
        assertThat(indexed.indexUse().indexes()).as(filter).containsExactly("name_ngram");
      }
    }
  }

  @Test
  void lanceListsAndUsesOurIndexAsWeDo(@TempDir Path dir) {
    writeStandard(dir);
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
      ScalarIndexBuilder.build(ds, ngram()).close();
    }
    deleteAndAppend(dir);
    try (Dataset lance = LanceOracle.open(allocator, dir)) {
      assertThat(lance.listIndexes()).contains("name_ngram");
      Map<String, Object> st = lance.getIndexStatistics("name_ngram");
      assertThat(String.valueOf(st.get("index_type"))).isEqualTo("NGram");
      assertThat(((Number) st.get("num_indexed_rows")).longValue())
          .isEqualTo(ROWS - ROWS / 10 - ROWS / 10);
      assertThat(((Number) st.get("num_unindexed_fragments")).longValue()).isEqualTo(1);
    }
    checkScans(dir);
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
      Scanner selective = ds.newScan().filter("contains(name, 'user-123')");
      ReadCounters.Reading start = ReadCounters.now();
      assertThat(ours(selective)).isNotEmpty();
      // the indexed rows holding the trigrams, and the appended fragment's 1,000
      assertThat(start.since().rowsScanned()).isLessThan(1000 + 200);
    }
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

  @Test
  void distributedBuildAndOptimizeAfterAppend(@TempDir Path dir) {
    writeStandard(dir);
    List<Integer> taskCounts = new ArrayList<>();
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
      ScalarIndexBuild.create(ds, ngram(), 1000, remote(taskCounts)).close();
    }
    assertThat(taskCounts).containsExactly(1);
    deleteAndAppend(dir);
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
      assertThat(ScalarIndexBuild.paramsOf(ds, "name_ngram").type()).isEqualTo(IndexType.NGRAM);
      try (dev.lancelot.engine.Dataset after =
          ScalarIndexBuild.optimize(ds, "name_ngram", 1000, remote(taskCounts))) {
        assertThat(after.indexes().segments("name_ngram")).hasSize(2);
      }
    }
    try (Dataset lance = LanceOracle.open(allocator, dir)) {
      Map<String, Object> st = lance.getIndexStatistics("name_ngram");
      assertThat(((Number) st.get("num_unindexed_fragments")).longValue()).isZero();
      assertThat(((Number) st.get("num_indexed_rows")).longValue())
          .isEqualTo(ROWS - ROWS / 10 - ROWS / 10 + 1000);
    }
    checkScans(dir);
  }

  @Test
  void badRequestsAreRefusedClearly(@TempDir Path dir) {
    writeStandard(dir);
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
      assertThat(ScalarBuildParams.parseType("ngram")).isEqualTo(IndexType.NGRAM);
      assertThat(ScalarBuildParams.parseType("N-GRAM")).isEqualTo(IndexType.NGRAM);
      assertThatThrownBy(
              () -> ScalarIndexBuilder.build(ds, ScalarBuildParams.of(IndexType.NGRAM, "id")))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("NGRAM index on column \"id\"")
          .hasMessageContaining("is not a string");
    }
    Path stable = dir.resolve("stable");
    try (VectorSchemaRoot batch =
        dev.lancelot.engine.testing.StandardData.generate(allocator, 0, 100, 4, 11)) {
      Dataset.write()
          .allocator(allocator)
          .reader(ArrowStreams.readerOf(allocator, List.of(batch)))
          .uri(stable.toString())
          .mode(WriteParams.WriteMode.CREATE)
          .enableStableRowIds(true)
          .execute()
          .close();
    }
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(stable.toString())) {
      assertThatThrownBy(() -> ScalarIndexBuilder.build(ds, ngram()))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("stable row ids");
      assertThat(ds.indexes().names()).isEmpty();
    }
  }

  /** A file's fields (name, type, nullable), schema metadata and rows (bytes as hex). */
  private static final class Table {
    final List<String> fields = new ArrayList<>();
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
      int n = (int) reader.numRows();
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
}
