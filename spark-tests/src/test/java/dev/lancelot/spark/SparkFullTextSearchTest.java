package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.index.text.FullTextQuery;
import dev.lancelot.engine.index.text.FullTextSearch;
import dev.lancelot.engine.index.text.TextQuery;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.testing.LicenseCorpus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.lance.WriteParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * {@code lance_fts_search} over an inverted index lance-core builds in four partitions (decision
 * D71, SPEC T6): one Spark partition per index partition, merged on the driver, returns the rows,
 * {@code _score}s and order of the engine's single-node {@link FullTextSearch}, with filters and
 * {@code fast_search}; bad calls are refused with errors naming the problem.
 */
class SparkFullTextSearchTest extends SharedSpark {
  static Path dir;
  static Path plain;
  static Path defaults;

  @BeforeAll
  static void build() throws Exception {
    List<String> docs = LicenseCorpus.paragraphs();
    Path root = Files.createTempDirectory("spark-fts");
    dir = root.resolve("licenses.lance");
    LicenseCorpus.write(allocator, dir, docs, 0, 850, WriteParams.WriteMode.CREATE, 250);
    try (org.lance.Dataset ds = LanceOracle.open(allocator, dir)) {
      ds.delete("id % 19 = 7");
    }
    LicenseCorpus.buildPartitionedIndex(allocator, dir, "text_idx");
    LicenseCorpus.write(allocator, dir, docs, 850, 60, WriteParams.WriteMode.APPEND, 250);
    defaults = root.resolve("defaults.lance");
    LicenseCorpus.write(allocator, defaults, docs, 0, 850, WriteParams.WriteMode.CREATE, 250);
    LicenseCorpus.buildPartitionedIndex(
        allocator, defaults, "text_idx", LicenseCorpus.defaultParams());
    plain = root.resolve("plain.lance");
    LicenseCorpus.write(allocator, plain, docs, 0, 40, WriteParams.WriteMode.CREATE, 250);
  }

  record Hit(long id, float score, long rowId) {}

  static List<Hit> spark(String args) {
    return spark(dir, args);
  }

  static List<Hit> spark(Path table, String args) {
    List<Hit> out = new ArrayList<>();
    for (Row r :
        SharedSpark.spark
            .sql(
                "SELECT id, _score, _rowid FROM lance_fts_search('"
                    + table
                    + "', column => 'text', with_row_id => true, fast_search => true, "
                    + args
                    + ")")
            .collectAsList()) {
      out.add(new Hit(r.getLong(0), r.getFloat(1), r.getLong(2)));
    }
    return out;
  }

  static List<Hit> engine(FullTextQuery.Builder query) {
    return engine(dir, query);
  }

  static List<Hit> engine(Path table, FullTextQuery.Builder query) {
    List<Hit> out = new ArrayList<>();
    try (Dataset ds = Dataset.open(table.toString());
        VectorSchemaRoot rows =
            FullTextSearch.search(
                ds, query.columns(List.of("id")).withRowId(true).fastSearch(true).build())) {
      BigIntVector id = (BigIntVector) rows.getVector("id");
      Float4Vector score = (Float4Vector) rows.getVector("_score");
      UInt8Vector rowId = (UInt8Vector) rows.getVector("_rowid");
      for (int i = 0; i < rows.getRowCount(); i++) {
        out.add(new Hit(id.get(i), score.get(i), rowId.get(i)));
      }
    }
    return out;
  }

  @Test
  void sparkAnswersAsTheEngine() {
    for (String q :
        List.of("license", "software warranty", "GNU General Public License", "Larger Work")) {
      for (int k : List.of(5, 30)) {
        List<Hit> expected = engine(FullTextQuery.match("text", q).k(k));
        assertThat(expected).isNotEmpty();
        assertThat(spark("query => '" + q + "', k => " + k)).as(q).isEqualTo(expected);
        assertThat(spark("query => '" + q + "', k => " + k + ", operator => 'and'"))
            .as(q + " AND")
            .isEqualTo(
                engine(FullTextQuery.match("text", q).k(k).operator(FullTextQuery.Operator.AND)));
      }
    }
  }

  /** lance-core's {@code _score}s of a match query, best first. */
  static List<Float> lanceScores(Path table, String q, int k) {
    List<Float> out = new ArrayList<>();
    try (org.lance.Dataset ds = LanceOracle.open(allocator, table);
        LanceScanner scanner =
            ds.newScan(
                new ScanOptions.Builder()
                    .fullTextQuery(org.lance.ipc.FullTextQuery.match(q, "text"))
                    .columns(List.of("id"))
                    .limit(k)
                    .build());
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        Float4Vector score = (Float4Vector) reader.getVectorSchemaRoot().getVector("_score");
        for (int i = 0; i < score.getValueCount(); i++) {
          out.add(score.get(i));
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    out.sort(Collections.reverseOrder());
    return out;
  }

  @Test
  void sparkSearchesAnIndexBuiltWithLanceDefaults() {
    for (String q :
        List.of("licenses", "copying and distributing", "the warranties", "Modified Versions")) {
      List<Hit> hits = spark(defaults, "query => '" + q + "', k => 12");
      assertThat(hits).as(q).isNotEmpty();
      assertThat(hits).as(q).isEqualTo(engine(defaults, FullTextQuery.match("text", q).k(12)));
      List<Float> lance = lanceScores(defaults, q, 12);
      assertThat(hits).as(q).hasSameSizeAs(lance);
      for (int i = 0; i < hits.size(); i++) {
        assertThat(hits.get(i).score())
            .as("%s: score of rank %d", q, i)
            .isCloseTo(lance.get(i), org.assertj.core.data.Percentage.withPercentage(0.01));
      }
    }
    assertThat(spark(defaults, "query => 'the and of', k => 5")).as("stop words only").isEmpty();
  }

  @Test
  void filtersApplyBeforeOrAfterTheTopKAsInTheEngine() {
    String filter = "id % 2 = 0 AND id > 200";
    List<Hit> pre = engine(FullTextQuery.match("text", "copyright holder").k(20).filter(filter));
    assertThat(spark("query => 'copyright holder', k => 20, filter => '" + filter + "'"))
        .isEqualTo(pre);
    List<Hit> prefiltered =
        engine(
            FullTextQuery.match("text", "copyright holder").k(20).filter(filter).prefilter(true));
    assertThat(prefiltered).hasSize(20).isNotEqualTo(pre);
    assertThat(
            spark(
                "query => 'copyright holder', k => 20, prefilter => true, filter => '"
                    + filter
                    + "'"))
        .isEqualTo(prefiltered);
  }

  @Test
  void explainShowsOneSparkPartitionPerIndexPartition() {
    String plan =
        SharedSpark.spark
            .sql(
                "EXPLAIN SELECT id FROM lance_fts_search('"
                    + dir
                    + "', column => 'text', query => 'license', fast_search => true)")
            .collectAsList()
            .get(0)
            .getString(0);
    assertThat(plan).contains("LanceFullTextSearch", "partitions=4", "merge=driver");
    for (int i = 0; i < 4; i++) {
      assertThat(plan).contains("fts-" + i + ": segment");
    }
    assertThat(plan).doesNotContain("fts-4");
  }

  /**
   * A boolean query and a boost query in Lance's JSON form (decision D80): one Spark partition per
   * index partition, leaf by leaf, combined on the driver into the engine's answer.
   */
  @Test
  void jsonQueryTreesAnswerAsTheEngine() {
    String bool =
        "{\"boolean\": {\"must\": [{\"match\": {\"column\": \"text\", \"terms\":"
            + " \"license\"}}], \"should\": [{\"match\": {\"column\": \"text\", \"terms\":"
            + " \"software warranty\", \"boost\": 2.0}}], \"must_not\": [{\"match\":"
            + " {\"column\": \"text\", \"terms\": \"GNU\"}}]}}";
    String boost =
        "{\"boost\": {\"positive\": {\"match\": {\"column\": \"text\", \"terms\":"
            + " \"copyright holder\"}}, \"negative\": {\"match\": {\"column\": \"text\","
            + " \"terms\": \"software\"}}, \"negative_boost\": 0.4}}";
    for (String json : List.of(bool, boost)) {
      List<Hit> expected = engine(FullTextQuery.of(TextQuery.fromJson(json)).k(25));
      assertThat(expected).as(json).hasSize(25);
      List<Hit> out = new ArrayList<>();
      for (Row r :
          SharedSpark.spark
              .sql(
                  "SELECT id, _score, _rowid FROM lance_fts_search('"
                      + dir
                      + "', query_json => '"
                      + json
                      + "', k => 25, with_row_id => true, fast_search => true)")
              .collectAsList()) {
        out.add(new Hit(r.getLong(0), r.getFloat(1), r.getLong(2)));
      }
      assertThat(out).as(json).isEqualTo(expected);
    }
    assertThatThrownBy(
            () ->
                SharedSpark.spark
                    .sql(
                        "SELECT * FROM lance_fts_search('"
                            + dir
                            + "', column => 'text', query_json => '"
                            + boost
                            + "')")
                    .collect())
        .hasMessageContaining("query_json replaces column, query and operator");
  }

  @Test
  void badCallsAreRefusedClearly() {
    String base = "SELECT * FROM lance_fts_search('" + dir + "', ";
    assertThatThrownBy(
            () ->
                SharedSpark.spark
                    .sql(base + "column => 'nope', query => 'x', fast_search => true)")
                    .collect())
        .hasMessageContaining("nope");
    assertThatThrownBy(
            () ->
                SharedSpark.spark
                    .sql(base + "column => 'id', query => 'x', fast_search => true)")
                    .collect())
        .hasMessageContaining("not a string");
    assertThatThrownBy(
            () ->
                SharedSpark.spark
                    .sql(
                        "SELECT * FROM lance_fts_search('"
                            + plain
                            + "', column => 'text', query => 'x')")
                    .collect())
        .hasMessageContaining("has no inverted index");
    assertThatThrownBy(
            () -> SharedSpark.spark.sql(base + "column => 'text', query => 'x', k => 0)").collect())
        .hasMessageContaining("k must be a positive integer");
    assertThatThrownBy(
            () ->
                SharedSpark.spark
                    .sql(base + "column => 'text', query => 'x', operator => 'xor')")
                    .collect())
        .hasMessageContaining("operator must be 'OR' or 'AND'");
    assertThatThrownBy(
            () -> SharedSpark.spark.sql(base + "column => 'text', query => 'license')").collect())
        .hasMessageContaining("does not cover fragments [4]")
        .hasMessageContaining("fast_search");
    assertThatThrownBy(
            () -> SharedSpark.spark.sql(base + "column => 'text', nearest => 'x')").collect())
        .hasMessageContaining("unknown argument nearest");
  }
}
