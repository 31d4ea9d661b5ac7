package dev.lancelot.engine.index.text;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.distributed.FullTextSearchPlan;
import dev.lancelot.engine.distributed.FullTextSearchTask;
import dev.lancelot.engine.distributed.FullTextTaskResult;
import dev.lancelot.engine.index.text.FullTextSearchOracleTest.Hit;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.testing.LicenseCorpus;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.lance.ReadOptions;
import org.lance.WriteParams;
import org.lance.index.IndexParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * A full-text search split into tasks through the public distributed API (decision D71, SPEC T5):
 * over an inverted index lance-core 7.0.0 builds in several partitions (its distributed build: a
 * piece per fragment merged into one segment), the plan, every task and every result cross a byte
 * boundary, tasks run in shuffled order on datasets from {@link Dataset#openCached}, and the merged
 * answer equals the local {@link FullTextSearch} bit for bit (rows, scores, order) and lance-core's
 * answer.
 */
@Tag("oracle")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DistributedFullTextSearchOracleTest {
  private static final Configuration CONF = new Configuration();

  private BufferAllocator allocator;
  @TempDir static Path tmp;
  private Path dir;
  private List<String> docs;

  /** The version whose fragments the index's segments cover. */
  private long covered;

  @BeforeAll
  void setUp() {
    allocator = new RootAllocator();
    docs = LicenseCorpus.paragraphs();
    assertThat(docs.size()).as("paragraphs in %s", LicenseCorpus.CORPUS).isGreaterThan(900);
    dir = tmp.resolve("licenses");
    LicenseCorpus.write(allocator, dir, docs, 0, 850, WriteParams.WriteMode.CREATE, 250);
    try (org.lance.Dataset ds = LanceOracle.open(allocator, dir)) {
      ds.delete("id % 17 = 3");
    }
    LicenseCorpus.buildPartitionedIndex(allocator, dir, "text_idx", indexParams());
    try (org.lance.Dataset ds = LanceOracle.open(allocator, dir)) {
      ds.delete("id % 23 = 5");
    }
    try (org.lance.Dataset ds = LanceOracle.open(allocator, dir)) {
      covered = ds.version();
    }
    LicenseCorpus.write(
        allocator, dir, docs, 850, docs.size() - 850, WriteParams.WriteMode.APPEND, 250);
  }

  /** The tokenizer settings of the index under test. */
  IndexParams indexParams() {
    return LicenseCorpus.simpleParams();
  }

  /** The token those settings make of the word "license". */
  String licenseToken() {
    return "license";
  }

  @AfterAll
  void tearDown() {
    allocator.close();
  }

  private List<Hit> lance(org.lance.ipc.FullTextQuery query, int k, String filter) {
    List<Hit> out = new ArrayList<>();
    ReadOptions read = new ReadOptions.Builder().setVersion(covered).build();
    try (org.lance.Dataset ds = org.lance.Dataset.open(allocator, dir.toString(), read)) {
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
          out.addAll(hits(reader.getVectorSchemaRoot()));
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return out;
  }

  private static List<Hit> hits(VectorSchemaRoot b) {
    List<Hit> out = new ArrayList<>();
    Float4Vector score = (Float4Vector) b.getVector("_score");
    UInt8Vector rowId = (UInt8Vector) b.getVector("_rowid");
    for (int i = 0; i < b.getRowCount(); i++) {
      out.add(new Hit(rowId.get(i), score.get(i)));
    }
    return out;
  }

  private static List<Hit> local(Dataset ds, FullTextQuery query) {
    try (VectorSchemaRoot rows = FullTextSearch.search(ds, query)) {
      return hits(rows);
    }
  }

  /**
   * The search through bytes: the plan is shipped, every task is shipped and run in shuffled order
   * on a cached dataset, every result is shipped back, and the plan merges.
   */
  private static List<Hit> distributed(Dataset ds, FullTextQuery query, long seed) {
    FullTextSearchPlan plan =
        FullTextSearchPlan.fromBytes(FullTextSearchPlan.plan(ds, query).toBytes());
    List<byte[]> shipped = new ArrayList<>();
    for (FullTextSearchTask t : plan.tasks()) {
      shipped.add(t.toBytes());
    }
    Collections.shuffle(shipped, new Random(seed));
    List<FullTextTaskResult> results = new ArrayList<>();
    for (byte[] bytes : shipped) {
      FullTextSearchTask task = FullTextSearchTask.fromBytes(bytes);
      Dataset at = Dataset.openCached(task.location(), task.version(), CONF);
      results.add(FullTextTaskResult.fromBytes(task.run(at).toBytes()));
    }
    try (VectorSchemaRoot rows = plan.finish(ds, results)) {
      return hits(rows);
    }
  }

  private static FullTextQuery.Builder match(String q, int k) {
    return FullTextQuery.match("text", q).k(k).columns(List.of("id")).withRowId(true);
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

  @Test
  void thePlanHasATaskPerPartitionOfEverySegmentAndCorpusWideStatistics() {
    try (Dataset ds = Dataset.open(dir.toString()).checkout(covered)) {
      assertThat(ds.indexes().segments("text_idx")).hasSize(1);
      FullTextSearchPlan plan = FullTextSearchPlan.plan(ds, match("license", 10).build());
      assertThat(plan.taskCount()).isGreaterThanOrEqualTo(4);
      Set<String> segments = new HashSet<>();
      long documents = 0;
      for (FullTextSearchTask t : plan.tasks()) {
        segments.add(t.segment());
        documents += t.documents();
      }
      assertThat(segments).hasSize(1);
      assertThat(plan.documents()).isEqualTo(documents);
      assertThat(plan.tokens()).containsExactly(licenseToken());
      assertThat(plan.documentFrequency(licenseToken())).isGreaterThan(50);
      assertThat(plan.explain()).contains("fts-0", "partition", "documents=" + documents);
    }
  }

  @Test
  void distributedAnswersEqualTheLocalSearchAndLanceCore() {
    try (Dataset ds = Dataset.open(dir.toString()).checkout(covered)) {
      long seed = 0;
      for (String q : FullTextSearchOracleTest.QUERIES) {
        for (int k : List.of(10, 40)) {
          for (boolean and : List.of(false, true)) {
            FullTextQuery query =
                match(q, k)
                    .operator(and ? FullTextQuery.Operator.AND : FullTextQuery.Operator.OR)
                    .build();
            List<Hit> local = local(ds, query);
            assertThat(distributed(ds, query, seed++)).as("%s", query).isEqualTo(local);
            FullTextSearchOracleTest.assertSameTopK(
                query.toString(), local, lance(lanceMatch(q, and), k, null));
          }
        }
      }
    }
  }

  @Test
  void filtersAndFastSearchAnswerAsLocally() {
    try (Dataset latest = Dataset.open(dir.toString());
        Dataset ds = latest.checkout(covered)) {
      for (String q : List.of("license", "software warranty", "copyright holder")) {
        for (String filter : List.of("id > 300", "id % 2 = 0 AND id < 700")) {
          FullTextQuery pre = match(q, 20).filter(filter).prefilter(true).build();
          List<Hit> local = local(ds, pre);
          assertThat(distributed(ds, pre, 7)).as("%s", pre).isEqualTo(local);
          FullTextSearchOracleTest.assertSameTopK(
              pre.toString(), local, lance(lanceMatch(q, false), 20, filter));
          FullTextQuery post = match(q, 20).filter(filter).build();
          assertThat(distributed(ds, post, 8)).as("%s", post).isEqualTo(local(ds, post));
        }
        FullTextQuery fast = match(q, 25).fastSearch(true).build();
        assertThat(distributed(latest, fast, 9)).isEqualTo(local(latest, fast)).isNotEmpty();
        assertThat(distributed(latest, fast, 9)).isEqualTo(local(ds, fast));
      }
    }
  }

  /**
   * An index of two segments (the second from {@code optimize_indices} over an appended fragment):
   * every partition of both is a task, and the answer is the local one. (lance-core's own answers
   * over such an index leave rows out — D71 — so only the local search is compared.)
   */
  @Test
  void everySegmentOfADeltaIndexIsSearched() {
    Path delta = tmp.resolve("delta");
    LicenseCorpus.write(allocator, delta, docs, 0, 500, WriteParams.WriteMode.CREATE, 250);
    try (org.lance.Dataset ds = LanceOracle.open(allocator, delta)) {
      ds.createIndex(
          List.of("text"),
          org.lance.index.IndexType.INVERTED,
          Optional.of("text_idx"),
          LicenseCorpus.simpleParams(),
          true);
    }
    LicenseCorpus.write(allocator, delta, docs, 500, 250, WriteParams.WriteMode.APPEND, 250);
    try (org.lance.Dataset ds = LanceOracle.open(allocator, delta)) {
      ds.optimizeIndices(
          org.lance.index.OptimizeOptions.builder()
              .indexNames(List.of("text_idx"))
              .numIndicesToMerge(0)
              .build());
      ds.delete("id % 13 = 1");
    }
    try (Dataset ds = Dataset.open(delta.toString())) {
      assertThat(ds.indexes().segments("text_idx")).hasSize(2);
      FullTextSearchPlan plan = FullTextSearchPlan.plan(ds, match("license", 10).build());
      assertThat(plan.tasks().stream().map(FullTextSearchTask::segment).distinct()).hasSize(2);
      long seed = 100;
      for (String q : List.of("license", "derivative works of the Program", "Larger Work")) {
        for (boolean and : List.of(false, true)) {
          FullTextQuery query =
              match(q, 15)
                  .operator(and ? FullTextQuery.Operator.AND : FullTextQuery.Operator.OR)
                  .build();
          List<Hit> local = local(ds, query);
          assertThat(local).isNotEmpty();
          if (!and) { // the appended fragment, indexed by the second segment, scores too
            assertThat(local.stream().filter(h -> h.rowId() >>> 32 == 2))
                .as("%s", query)
                .isNotEmpty();
          }
          assertThat(distributed(ds, query, seed++)).as("%s", query).isEqualTo(local);
        }
        FullTextQuery pre = match(q, 15).filter("id > 400").prefilter(true).build();
        assertThat(distributed(ds, pre, seed++)).as("%s", pre).isEqualTo(local(ds, pre));
      }
    }
  }

  @Test
  void badPlansAndResultsAreRefusedClearly() {
    try (Dataset latest = Dataset.open(dir.toString());
        Dataset ds = latest.checkout(covered)) {
      assertThatThrownBy(() -> FullTextSearchPlan.plan(latest, match("license", 10).build()))
          .isInstanceOf(LancelotException.class)
          .hasMessageContaining("does not cover fragments");
      assertThatThrownBy(
              () -> FullTextSearchPlan.plan(ds, FullTextQuery.match("nope", "x").build()))
          .isInstanceOf(LancelotException.class)
          .hasMessageContaining("nope");
      assertThatThrownBy(
              () -> FullTextSearchPlan.plan(ds, match("x", 3).filter("nope > 1").build()))
          .isInstanceOf(LancelotException.class)
          .hasMessageContaining("nope");
      FullTextSearchPlan plan = FullTextSearchPlan.plan(ds, match("license", 10).build());
      List<FullTextTaskResult> results = new ArrayList<>();
      for (FullTextSearchTask t : plan.tasks()) {
        results.add(t.run(ds));
      }
      assertThatThrownBy(() -> plan.finish(ds, results.subList(1, results.size())))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("results of tasks [0] are missing");
      List<FullTextTaskResult> twice = new ArrayList<>(results);
      twice.add(results.get(0));
      assertThatThrownBy(() -> plan.finish(ds, twice))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("merged once");
      assertThatThrownBy(() -> plan.tasks().get(0).run(latest))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("run on version");
      assertThatThrownBy(() -> FullTextTaskResult.fromBytes(plan.tasks().get(0).toBytes()))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("another kind of piece");
      byte[] cut = results.get(0).toBytes();
      assertThatThrownBy(
              () -> FullTextTaskResult.fromBytes(java.util.Arrays.copyOf(cut, cut.length - 3)))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("corrupt");
    }
  }
}
