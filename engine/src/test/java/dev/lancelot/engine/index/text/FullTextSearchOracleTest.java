package dev.lancelot.engine.index.text;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.testing.LicenseCorpus;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
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
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.lance.ReadOptions;
import org.lance.WriteParams;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.InvertedIndexParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * Match queries through an inverted index lance-core 7.0.0 builds over a real text corpus (the
 * paragraphs of Debian's common licenses), with rows deleted after the build and an unindexed
 * appended fragment: lancelot's top-k row ids and BM25 scores equal Lance's (decision D66).
 */
@Tag("oracle")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FullTextSearchOracleTest {
  private static final int INDEXED = 800;

  static final List<String> QUERIES =
      List.of(
          "license",
          "software warranty",
          "copyright holder",
          "GNU General Public License",
          "patent",
          "distribute and modify",
          "Mozilla",
          "Artistic package",
          "covered work",
          "derivative works of the Program",
          "zzzqqq",
          "Free Software Foundation, Inc.",
          "merchantability fitness particular purpose",
          "the",
          "Larger Work",
          "license zzzqqq");

  private BufferAllocator allocator;
  @TempDir static Path tmp;
  private Path dir;
  private List<String> docs;

  /** The version before the append: the index covers every fragment. */
  private long covered;

  @BeforeAll
  void setUp() throws IOException {
    allocator = new RootAllocator();
    docs = LicenseCorpus.paragraphs();
    assertThat(docs.size())
        .as("paragraphs in %s", LicenseCorpus.CORPUS)
        .isGreaterThan(INDEXED + 50);
    dir = tmp.resolve("licenses");
    write(0, INDEXED, WriteParams.WriteMode.CREATE);
    try (org.lance.Dataset ds = LanceOracle.open(allocator, dir)) {
      ds.delete("id % 17 = 3");
      ds.createIndex(
          List.of("text"), IndexType.INVERTED, Optional.of("text_idx"), indexParams(), true);
      ds.delete("id % 23 = 5");
    }
    try (org.lance.Dataset ds = LanceOracle.open(allocator, dir)) {
      covered = ds.version();
    }
    write(INDEXED, docs.size() - INDEXED, WriteParams.WriteMode.APPEND);
  }

  /** The tokenizer settings of the index under test. */
  IndexParams indexParams() {
    return LicenseCorpus.simpleParams();
  }

  @AfterAll
  void tearDown() {
    allocator.close();
  }

  private void write(int first, int count, WriteParams.WriteMode mode) {
    LicenseCorpus.write(allocator, dir, docs, first, count, mode, 500);
  }

  record Hit(long rowId, float score) {}

  private List<Hit> lance(
      Optional<Long> version, org.lance.ipc.FullTextQuery query, int k, String filter) {
    ReadOptions.Builder read = new ReadOptions.Builder();
    version.ifPresent(read::setVersion);
    List<Hit> out = new ArrayList<>();
    try (org.lance.Dataset ds = org.lance.Dataset.open(allocator, dir.toString(), read.build())) {
      ScanOptions.Builder opts =
          new ScanOptions.Builder()
              .fullTextQuery(query)
              .columns(List.of("id"))
              .withRowId(true)
              .limit(k);
      if (filter != null) {
        opts.filter(filter).prefilter(true);
      }
      try (LanceScanner scanner = ds.newScan(opts.build());
          ArrowReader reader = scanner.scanBatches()) {
        while (reader.loadNextBatch()) {
          VectorSchemaRoot b = reader.getVectorSchemaRoot();
          Float4Vector score = (Float4Vector) b.getVector("_score");
          UInt8Vector rowId = (UInt8Vector) b.getVector("_rowid");
          for (int i = 0; i < b.getRowCount(); i++) {
            out.add(new Hit(rowId.get(i), score.get(i)));
          }
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return out;
  }

  private static List<Hit> ours(Dataset ds, FullTextQuery query) {
    List<Hit> out = new ArrayList<>();
    try (VectorSchemaRoot rows = FullTextSearch.search(ds, query)) {
      Float4Vector score = (Float4Vector) rows.getVector("_score");
      UInt8Vector rowId = (UInt8Vector) rows.getVector("_rowid");
      for (int i = 0; i < rows.getRowCount(); i++) {
        out.add(new Hit(rowId.get(i), score.get(i)));
      }
    }
    return out;
  }

  /**
   * The same scores rank by rank (1e-4 relative), and the same row ids except among rows tied at
   * the k-th score, where either engine may keep any of them.
   */
  static void assertSameTopK(String what, List<Hit> ours, List<Hit> theirs) {
    List<Hit> lance = new ArrayList<>(theirs);
    lance.sort((a, b) -> Float.compare(b.score(), a.score()));
    assertThat(ours)
        .as("%s: row count (ours %s, Lance's %s)", what, ours, lance)
        .hasSameSizeAs(lance);
    for (int i = 0; i < ours.size(); i++) {
      float a = ours.get(i).score();
      float b = lance.get(i).score();
      assertThat(Math.abs(a - b))
          .as("%s: score of rank %d: ours %s, Lance's %s", what, i, ours, lance)
          .isLessThanOrEqualTo(1e-4f * Math.abs(b));
    }
    if (ours.isEmpty()) {
      return;
    }
    // Ranks whose scores agree to 1e-4 form a group (rows tied up to summation rounding); every
    // group but the one at the cut holds the same row ids in both answers.
    float cut = lance.get(lance.size() - 1).score();
    Map<Integer, TreeSet<Long>> mine = new TreeMap<>();
    Map<Integer, TreeSet<Long>> theirsById = new TreeMap<>();
    int group = 0;
    float first = lance.get(0).score();
    for (int i = 0; i < ours.size(); i++) {
      float score = lance.get(i).score();
      if (Math.abs(score - first) > 1e-4f * first) {
        group++;
        first = score;
      }
      if (Math.abs(score - cut) > 1e-4f * cut) {
        theirsById.computeIfAbsent(group, x -> new TreeSet<>()).add(lance.get(i).rowId());
        mine.computeIfAbsent(group, x -> new TreeSet<>()).add(ours.get(i).rowId());
      }
    }
    assertThat(mine).as("%s: row ids above the k-th score", what).isEqualTo(theirsById);
  }

  private static org.lance.ipc.FullTextQuery lanceMatch(String q, boolean and) {
    return org.lance.ipc.FullTextQuery.match(
        q,
        "text",
        1.0f,
        Optional.empty(),
        50,
        and ? org.lance.ipc.FullTextQuery.Operator.AND : org.lance.ipc.FullTextQuery.Operator.OR,
        0);
  }

  private static FullTextQuery.Builder match(String q, int k) {
    return FullTextQuery.match("text", q).k(k).columns(List.of("id")).withRowId(true);
  }

  @Test
  void matchQueriesScoreAsLanceDoes() {
    try (Dataset ds = Dataset.open(dir.toString()).checkout(covered)) {
      for (String q : QUERIES) {
        for (int k : List.of(10, 40)) {
          for (boolean and : List.of(false, true)) {
            List<Hit> ours =
                ours(
                    ds,
                    match(q, k)
                        .operator(and ? FullTextQuery.Operator.AND : FullTextQuery.Operator.OR)
                        .build());
            List<Hit> theirs = lance(Optional.of(covered), lanceMatch(q, and), k, null);
            assertSameTopK(q + " k=" + k + (and ? " AND" : " OR"), ours, theirs);
          }
        }
      }
    }
  }

  @Test
  void prefilteredQueriesScoreAsLanceDoes() {
    try (Dataset ds = Dataset.open(dir.toString()).checkout(covered)) {
      for (String q : List.of("license", "software warranty", "copyright holder")) {
        for (String filter : List.of("id > 300", "id % 2 = 0 AND id < 700")) {
          List<Hit> ours = ours(ds, match(q, 20).filter(filter).prefilter(true).build());
          List<Hit> theirs = lance(Optional.of(covered), lanceMatch(q, false), 20, filter);
          assertSameTopK(q + " where " + filter, ours, theirs);
        }
      }
    }
  }

  @Test
  void postfilterKeepsTheTopKRowsThatPass() {
    try (Dataset ds = Dataset.open(dir.toString()).checkout(covered)) {
      List<Hit> top = ours(ds, match("license", 30).build());
      List<Hit> filtered = ours(ds, match("license", 30).filter("id > 300").build());
      List<Long> passing = new ArrayList<>();
      try (VectorSchemaRoot rows =
          ds.takeRows(top.stream().mapToLong(Hit::rowId).toArray(), List.of("id"))) {
        BigIntVector ids = (BigIntVector) rows.getVector("id");
        for (int i = 0; i < rows.getRowCount(); i++) {
          if (ids.get(i) > 300) {
            passing.add(top.get(i).rowId());
          }
        }
      }
      assertThat(passing).isNotEmpty().hasSizeLessThan(top.size());
      assertThat(filtered.stream().map(Hit::rowId).toList()).isEqualTo(passing);
    }
  }

  @Test
  void deletedRowsNeverComeBack() {
    try (Dataset ds = Dataset.open(dir.toString()).checkout(covered);
        VectorSchemaRoot rows =
            FullTextSearch.search(ds, FullTextQuery.match("text", "license").k(1000).build())) {
      BigIntVector ids = (BigIntVector) rows.getVector("id");
      assertThat(rows.getRowCount()).isGreaterThan(100);
      for (int i = 0; i < rows.getRowCount(); i++) {
        assertThat(ids.get(i) % 17).isNotEqualTo(3);
        assertThat(ids.get(i) % 23).isNotEqualTo(5);
      }
    }
  }

  @Test
  void fastSearchLeavesTheAppendedFragmentOut() {
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThat(ds.indexes().unindexedFragments("text_idx")).hasSize(1);
      for (String q : List.of("license", "Mozilla", "GNU General Public License")) {
        List<Hit> ours = ours(ds, match(q, 25).fastSearch(true).build());
        List<Hit> theirs = lance(Optional.of(covered), lanceMatch(q, false), 25, null);
        assertSameTopK(q + " fast_search", ours, theirs);
      }
      assertThatThrownBy(() -> ours(ds, match("license", 10).build()))
          .isInstanceOf(LancelotException.class)
          .hasMessageContaining("does not cover fragments [2]")
          .hasMessageContaining("fast_search");
    }
  }

  @Test
  void badQueriesAreRefusedClearly() {
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThatThrownBy(() -> FullTextSearch.search(ds, FullTextQuery.match("nope", "x").build()))
          .isInstanceOf(LancelotException.class)
          .hasMessageContaining("nope");
      assertThatThrownBy(() -> FullTextSearch.search(ds, FullTextQuery.match("id", "x").build()))
          .isInstanceOf(LancelotException.class)
          .hasMessageContaining("not a string");
      assertThatThrownBy(() -> FullTextQuery.match("text", "x").k(0))
          .isInstanceOf(LancelotException.class)
          .hasMessageContaining("k must be positive");
      assertThatThrownBy(() -> FullTextQuery.match(" ", "x"))
          .isInstanceOf(LancelotException.class)
          .hasMessageContaining("needs a column");
    }
  }

  @Test
  void indexesWithSettingsLancelotDoesNotReproduceAreRefused() {
    Path other = tmp.resolve("stemmed");
    Path saved = dir;
    dir = other;
    try {
      write(0, 50, WriteParams.WriteMode.CREATE);
    } finally {
      dir = saved;
    }
    try (Dataset ds = Dataset.open(other.toString())) {
      assertThatThrownBy(() -> FullTextSearch.search(ds, FullTextQuery.match("text", "x").build()))
          .isInstanceOf(LancelotException.class)
          .hasMessageContaining("has no inverted index");
    }
    try (org.lance.Dataset ds = LanceOracle.open(allocator, other)) {
      ds.createIndex(
          List.of("text"),
          IndexType.INVERTED,
          Optional.of("stemmed_idx"),
          IndexParams.builder()
              .setScalarIndexParams(
                  InvertedIndexParams.builder()
                      .baseTokenizer("simple")
                      .language("French")
                      .withPosition(false)
                      .maxTokenLength(40)
                      .lowerCase(true)
                      .stem(true)
                      .removeStopWords(false)
                      .asciiFolding(true)
                      .build())
              .build(),
          true);
    }
    try (Dataset ds = Dataset.open(other.toString())) {
      assertThatThrownBy(
              () -> FullTextSearch.search(ds, FullTextQuery.match("text", "license").build()))
          .isInstanceOf(LancelotException.class)
          .hasMessageContaining("stemmed_idx")
          .hasMessageContaining("stems tokens for language \"French\"");
    }
  }
}
