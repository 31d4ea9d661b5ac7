package dev.lancelot.engine.query.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.index.IndexInternals;
import dev.lancelot.engine.internal.query.DistributedSearch;
import dev.lancelot.engine.query.InvalidQueryException;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.query.VectorSearch;
import dev.lancelot.engine.query.VectorSearchResult;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.BruteForce;
import dev.lancelot.engine.testing.ClusteredData;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.testing.Rows;
import dev.lancelot.engine.vector.DistanceMetric;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntPredicate;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.lance.WriteParams;
import org.lance.index.DistanceType;

/**
 * SPEC E1 with Q3: recall is measured against exact search in the metric the search ranks by — the
 * index's when the query names none. On cosine and dot indexes built by lancelot and by Lance 7,
 * every recall the evaluator reports equals the recall of the same searches against a brute force
 * computed here in plain Java in the index's metric, whether the grid names the metric or leaves it
 * to the index; unfiltered, prefiltered and with unindexed rows present.
 */
@Tag("oracle")
class RecallMetricTest {
  static final int DIM = 16;
  static final int CLUSTERS = 30;
  static final int K = 10;
  static final String FILTER = "tenant_id < 20";
  static final IntPredicate FILTER_TENANTS = t -> t >= 0 && t < 20;
  static BufferAllocator allocator;
  static Path ourCosine;
  static Path ourDot;
  static Path lanceCosine;
  static Path lanceDot;
  static float[][] queries;

  @BeforeAll
  static void setUp() throws Exception {
    allocator = new RootAllocator();
    ourCosine = Files.createTempDirectory("recall-our-cosine");
    write(ourCosine, 0, 3000, WriteMode.CREATE);
    try (Dataset ds = Dataset.open(ourCosine.toString())) {
      VectorIndexes.create(
              ds,
              "vector",
              VectorIndexSpec.of(IndexType.IVF_HNSW_SQ, DistanceMetric.COSINE).withNumPartitions(4))
          .close();
    }
    write(
        ourCosine, 3000, 400, WriteMode.APPEND); // unindexed: searched flat, in the index's metric
    ourDot = Files.createTempDirectory("recall-our-dot");
    write(ourDot, 0, 3000, WriteMode.CREATE);
    try (Dataset ds = Dataset.open(ourDot.toString())) {
      VectorIndexes.create(
              ds,
              "vector",
              VectorIndexSpec.of(IndexType.IVF_PQ, DistanceMetric.DOT)
                  .withNumPartitions(6)
                  .withNumSubVectors(4))
          .close();
    }
    lanceCosine = Files.createTempDirectory("recall-lance-cosine");
    ClusteredData.write(
        allocator, lanceCosine, 0, 3000, DIM, CLUSTERS, 5, WriteParams.WriteMode.CREATE, 1500);
    LanceOracle.createIvfHnswSq(allocator, lanceCosine, "vector", 4, DistanceType.Cosine);
    lanceDot = Files.createTempDirectory("recall-lance-dot");
    ClusteredData.write(
        allocator, lanceDot, 0, 3000, DIM, CLUSTERS, 5, WriteParams.WriteMode.CREATE, 1500);
    LanceOracle.createIvfPq(allocator, lanceDot, "vector", 6, 4, DistanceType.Dot);
    queries = ClusteredData.queries(20, DIM, CLUSTERS, 5, 17);
  }

  @AfterAll
  static void tearDown() {
    allocator.close();
  }

  static void write(Path dir, long first, int rows, WriteMode mode) throws Exception {
    try (VectorSchemaRoot b = ClusteredData.generate(allocator, first, rows, DIM, CLUSTERS, 5);
        ArrowReader r = ArrowStreams.readerOf(allocator, List.of(b))) {
      Dataset.write(dir.toString(), r, WriteOptions.of(mode).withMaxRowsPerFile(1500)).close();
    }
  }

  @Test
  void cosineIndexBuiltByLancelot() {
    assertRecallIsAgainstTheIndexMetric(ourCosine, "cosine");
  }

  @Test
  void dotIndexBuiltByLancelot() {
    assertRecallIsAgainstTheIndexMetric(ourDot, "dot");
  }

  @Test
  void cosineIndexBuiltByLance() {
    assertRecallIsAgainstTheIndexMetric(lanceCosine, "cosine");
  }

  @Test
  void dotIndexBuiltByLance() {
    assertRecallIsAgainstTheIndexMetric(lanceDot, "dot");
  }

  /**
   * For the grid left to the index's metric and the grid naming it, each measured row's recall
   * equals an independent computation, and the l2 ground truth would have given another number (so
   * this test tells the two apart).
   */
  static void assertRecallIsAgainstTheIndexMetric(Path dir, String metric) {
    BruteForce truth = BruteForce.of(dir.toString());
    try (Dataset ds = Dataset.open(dir.toString())) {
      for (String grid : List.of("nprobes=2", "nprobes=2;metric=" + metric)) {
        List<RecallRow> rows =
            RecallEvaluator.evaluate(
                ds,
                queries,
                new RecallEvaluator.Options("vector", K, FILTER, null),
                RecallEvaluator.parseGrid(grid));
        int measured = 0;
        for (RecallRow row : rows) {
          if (!row.measured()) {
            continue;
          }
          measured++;
          assertThat(row.metric()).as("%s %s", grid, row.scenario()).isEqualTo(metric);
          boolean filtered = row.scenario().equals("prefilter");
          IntPredicate tenants = filtered ? FILTER_TENANTS : t -> true;
          double independent = 0;
          double againstL2 = 0;
          for (float[] q : queries) {
            VectorQuery.Builder b =
                VectorQuery.builder("vector")
                    .vector(q)
                    .k(K)
                    .nprobes(2)
                    .columns("id")
                    .fastSearch(row.scenario().equals("fast_search"));
            if (filtered) {
              b.filter(FILTER).prefilter(true);
            }
            Set<Long> got = ids(ds, b.build());
            independent += BruteForce.recall(got, truth.nearest(q, K, metric, tenants), K);
            againstL2 += BruteForce.recall(got, truth.nearest(q, K, "l2", tenants), K);
          }
          independent /= queries.length;
          againstL2 /= queries.length;
          assertThat(row.recall())
              .as("%s, %s on %s", grid, row.scenario(), dir)
              .isCloseTo(independent, within(0.006));
          assertThat(Math.abs(againstL2 - independent))
              .as("l2 truth must differ (%s)", row.scenario())
              .isGreaterThan(0.02);
        }
        assertThat(measured).as(grid).isGreaterThanOrEqualTo(2);
      }
    }
  }

  static Set<Long> ids(Dataset ds, VectorQuery q) {
    try (VectorSearchResult r = VectorSearch.search(ds, q)) {
      Set<Long> out = new HashSet<>();
      Rows.of(r.rows()).forEach(row -> out.add((Long) row.get(0)));
      return out;
    }
  }

  @Test
  void aMetricOtherThanTheIndexesIsMeasuredAgainstExactSearchInThatMetric() {
    try (Dataset ds = Dataset.open(ourCosine.toString())) {
      List<RecallRow> rows =
          RecallEvaluator.evaluate(
              ds,
              queries,
              new RecallEvaluator.Options("vector", K, null, null),
              RecallEvaluator.parseGrid("metric=l2,cosine;nprobes=2"));
      RecallRow l2 = rows.get(0);
      RecallRow cosine = rows.get(1);
      assertThat(l2.setting()).isEqualTo("metric=l2, nprobes=2");
      assertThat(l2.metric()).isEqualTo("l2");
      assertThat(l2.recall()).isEqualTo(1.0); // the index is bypassed: flat search in l2 (SPEC Q3)
      assertThat(cosine.metric()).isEqualTo("cosine");
      assertThat(cosine.recall()).isLessThan(1.0).isGreaterThan(0.5);
    }
  }

  @Test
  void theExactCounterpartRanksByTheIndexMetric() {
    try (Dataset ds = Dataset.open(lanceDot.toString())) {
      VectorQuery q =
          VectorQuery.builder("vector")
              .vector(queries[0])
              .k(K)
              .filter(FILTER)
              .prefilter(true)
              .build();
      VectorQuery exact = VectorSearch.exactCounterpart(ds, q);
      assertThat(exact.metric()).contains(DistanceMetric.DOT);
      assertThat(exact.useIndex()).isFalse();
      assertThat(exact.filter()).contains(FILTER);
      assertThat(exact.prefilter()).isTrue();
      assertThat(VectorSearch.explain(ds, exact)).contains("FlatKnn").contains("metric=dot");
      VectorQuery named = q.toBuilder().metric(DistanceMetric.L2).build();
      assertThat(VectorSearch.exactCounterpart(ds, named).metric()).contains(DistanceMetric.L2);
    }
  }

  @Test
  void flatUnitsOfAnAnnQueryRankByTheIndexMetric() {
    BruteForce truth = BruteForce.of(ourCosine.toString());
    // Row 3100 lies in the unindexed fragment. Scaled by 5 it is still at cosine distance 0 from
    // the
    // query, but far from it in l2: only a cosine flat unit ranks it first.
    float[] q = truth.vectorOf(3100);
    for (int d = 0; d < q.length; d++) {
      q[d] *= 5;
    }
    try (Dataset ds = Dataset.open(ourCosine.toString())) {
      VectorQuery query =
          VectorQuery.builder("vector").vector(q).k(5).nprobes(1).columns("id").build();
      assertThat(VectorSearch.explain(ds, query))
          .contains("FlatKnn")
          .contains("metric=cosine")
          .doesNotContain("metric=l2");
      try (VectorSearchResult r = VectorSearch.search(ds, query)) {
        List<List<Object>> rows = Rows.of(r.rows());
        assertThat(rows.get(0).get(0)).isEqualTo(3100L);
        for (List<Object> row : rows) {
          float distance = (Float) row.get(row.size() - 1);
          long id = (Long) row.get(0);
          if (id >= 3000) { // exact distances of the flat unit, in the index's metric
            assertThat((double) distance)
                .isCloseTo(BruteForce.distance("cosine", q, truth.vectorOf(id)), within(1e-4));
          }
        }
      }
    }
  }

  @Test
  void aSettingThatCannotRunInOneScenarioIsReportedAndTheOthersAreMeasured() {
    try (Dataset ds = Dataset.open(ourCosine.toString())) {
      List<RecallRow> rows =
          RecallEvaluator.evaluate(
              ds,
              queries,
              new RecallEvaluator.Options("vector", K, FILTER, null),
              RecallEvaluator.parseGrid("use_index=false,true"));
      Map<String, List<RecallRow>> byScenario = new java.util.LinkedHashMap<>();
      rows.forEach(
          r -> byScenario.computeIfAbsent(r.scenario(), s -> new java.util.ArrayList<>()).add(r));
      RecallRow fastExact = byScenario.get("fast_search").get(0);
      assertThat(fastExact.measured()).isFalse();
      assertThat(fastExact.setting()).isEqualTo("use_index=false");
      assertThat(fastExact.note())
          .contains("not measured")
          .contains("fast_search and use_index=false");
      assertThat(byScenario.get("fast_search").get(1).measured()).isTrue();
      assertThat(byScenario.get("no filter").get(0).recall()).isEqualTo(1.0);
      assertThat(byScenario.get("prefilter").get(0).recall()).isEqualTo(1.0);
      assertThat(byScenario.get("unindexed data present").get(0).recall()).isEqualTo(1.0);
    }
  }

  /**
   * SPEC Q11 against Lance 7: a {@code use_index=false} query that names no metric ranks in l2,
   * whatever the column's index — as Lance 7 does (same rows, same distances). This is why the
   * recall's exact counterpart names the search's metric explicitly.
   */
  @Test
  void exactSearchWithoutAMetricRanksAsLanceDoes() {
    for (Path dir : List.of(lanceCosine, lanceDot)) {
      List<LanceOracle.Hit> lance =
          LanceOracle.nearest(allocator, dir, queries[1], K, null, null, null, false, null, false);
      try (Dataset ds = Dataset.open(dir.toString());
          VectorSearchResult r =
              VectorSearch.search(
                  ds,
                  VectorQuery.builder("vector")
                      .vector(queries[1])
                      .k(K)
                      .useIndex(false)
                      .columns("id")
                      .build())) {
        List<List<Object>> ours = Rows.of(r.rows());
        assertThat(ours).hasSize(lance.size());
        for (int i = 0; i < ours.size(); i++) {
          assertThat(ours.get(i).get(0)).isEqualTo(lance.get(i).id());
          assertThat((Float) ours.get(i).get(1)).isCloseTo(lance.get(i).distance(), within(1e-3f));
          assertThat((double) lance.get(i).distance())
              .isCloseTo(
                  BruteForce.distance(
                      "l2", queries[1], BruteForce.of(dir.toString()).vectorOf(lance.get(i).id())),
                  within(1e-2));
        }
      }
    }
  }

  /**
   * Q3: an index whose segments were built with different metrics cannot rank; it is refused,
   * naming both.
   */
  @Test
  void anIndexWhoseSegmentsDisagreeOnTheMetricIsRefused() throws Exception {
    Path dir = Files.createTempDirectory("recall-mixed-metrics");
    write(dir, 0, 1000, WriteMode.CREATE);
    try (Dataset ds = Dataset.open(dir.toString())) {
      VectorIndexes.create(
              ds,
              "vector",
              VectorIndexSpec.of(IndexType.IVF_FLAT, DistanceMetric.COSINE).withNumPartitions(2))
          .close();
    }
    write(dir, 1000, 300, WriteMode.APPEND);
    try (Dataset ds = Dataset.open(dir.toString())) {
      var delta =
          dev.lancelot.engine.internal.index.vector.build.VectorIndexBuilder.build(
              ds,
              "vector",
              VectorIndexSpec.of(IndexType.IVF_FLAT, DistanceMetric.L2).withNumPartitions(2),
              IndexInternals.unindexedFragments(ds.indexes(), "vector_idx"),
              null);
      DatasetInternals.commitIndexes(ds, List.of(delta.metadata()), List.of()).close();
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      VectorQuery q = VectorQuery.builder("vector").vector(queries[0]).k(K).build();
      assertThatThrownBy(() -> DistributedSearch.plan(ds, q))
          .isInstanceOf(InvalidQueryException.class)
          .hasMessageContaining("segments were built with different metrics")
          .hasMessageContaining("cosine")
          .hasMessageContaining("l2");
      // the recall report says so in every cell it cannot measure
      List<RecallRow> rows =
          RecallEvaluator.evaluate(
              ds,
              queries,
              new RecallEvaluator.Options("vector", K, null, null),
              RecallEvaluator.parseGrid(""));
      assertThat(rows.get(0).measured()).isFalse();
      assertThat(rows.get(0).note()).contains("different metrics");
    }
  }

  @Test
  void badGridsFailBeforeAnythingRuns() {
    try (Dataset ds = Dataset.open(ourCosine.toString())) {
      RecallEvaluator.Options o = new RecallEvaluator.Options("vector", K, null, null);
      assertThatThrownBy(
              () -> RecallEvaluator.evaluate(ds, queries, o, RecallEvaluator.parseGrid("nprobs=4")))
          .isInstanceOf(InvalidQueryException.class)
          .hasMessageContaining("unknown parameter \"nprobs\"");
      assertThatThrownBy(
              () -> RecallEvaluator.evaluate(ds, queries, o, RecallEvaluator.parseGrid("k=5")))
          .isInstanceOf(InvalidQueryException.class)
          .hasMessageContaining("grid parameter \"k\"");
      assertThatThrownBy(
              () ->
                  RecallEvaluator.evaluate(
                      ds, queries, o, RecallEvaluator.parseGrid("metric=manhattan")))
          .isInstanceOf(dev.lancelot.engine.LancelotException.class)
          .hasMessageContaining("manhattan");
      assertThatThrownBy(
              () -> RecallEvaluator.evaluate(ds, new float[0][], o, RecallEvaluator.parseGrid("")))
          .isInstanceOf(InvalidQueryException.class)
          .hasMessageContaining("no query vectors");
    }
  }
}
