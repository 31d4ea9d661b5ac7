package dev.lancelot.engine.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.internal.query.DistributedSearch;
import dev.lancelot.engine.testing.ClusteredData;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.testing.Rows;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.lance.WriteParams;
import org.lance.index.DistanceType;

/**
 * SPEC Q3–Q10 with Lance-built indexes, side by side with lance-core 7.0.0 on the same dataset:
 * recall within 0.01 of Lance's at equal parameters, same row counts for prefilter and postfilter,
 * unindexed fragments searched exactly, fast_search skipping them.
 */
@Tag("oracle")
class AnnSearchOracleTest {
  static BufferAllocator allocator;
  static Path pq;
  static Path hnsw;
  static final int DIM = 32;
  static float[][] queries;

  /** Queries from the HNSW dataset's own clusters (its data seed is 6). */
  static float[][] hnswQueries;

  @BeforeAll
  static void setUp() throws Exception {
    allocator = new RootAllocator();
    pq = Files.createTempDirectory("ann-pq");
    ClusteredData.write(allocator, pq, 0, 6000, DIM, 40, 5, WriteParams.WriteMode.CREATE, 3000);
    LanceOracle.createIvfPq(allocator, pq, "vector", 16, 8, DistanceType.L2);
    LanceOracle.createBTree(allocator, pq, "tenant_id");
    ClusteredData.write(
        allocator, pq, 6000, 500, DIM, 40, 5, WriteParams.WriteMode.APPEND, 3000); // unindexed
    hnsw = Files.createTempDirectory("ann-hnsw");
    ClusteredData.write(allocator, hnsw, 0, 5000, DIM, 40, 6, WriteParams.WriteMode.CREATE, 2500);
    LanceOracle.createIvfHnswSq(allocator, hnsw, "vector", 4, DistanceType.Cosine);
    queries = ClusteredData.queries(40, DIM, 40, 5, 99);
    hnswQueries = ClusteredData.queries(100, DIM, 40, 6, 98);
  }

  @AfterAll
  static void tearDown() {
    allocator.close();
  }

  static List<Long> ours(Path dir, VectorQuery q) {
    try (Dataset ds = Dataset.open(dir.toString());
        VectorSearchResult r = VectorSearch.search(ds, q)) {
      return Rows.of(r.rows()).stream().map(row -> (Long) row.get(0)).toList();
    }
  }

  static double recall(List<Long> got, List<Long> truth) {
    Set<Long> hit = new HashSet<>(got);
    hit.retainAll(new HashSet<>(truth));
    return truth.isEmpty() ? 1 : (double) hit.size() / truth.size();
  }

  @Test
  void recallWithinOneHundredthOfLanceAtEqualParameters() {
    for (int nprobes : new int[] {1, 4}) {
      for (Integer refine : new Integer[] {null, 4}) {
        double ourRecall = 0;
        double lanceRecall = 0;
        for (float[] q : queries) {
          List<Long> truth =
              LanceOracle.nearest(allocator, pq, q, 10, null, null, null, false, null, false)
                  .stream()
                  .map(LanceOracle.Hit::id)
                  .toList();
          VectorQuery.Builder b =
              VectorQuery.builder("vector").vector(q).k(10).nprobes(nprobes).columns("id");
          if (refine != null) {
            b.refineFactor(refine);
          }
          ourRecall += recall(ours(pq, b.build()), truth);
          lanceRecall +=
              recall(
                  LanceOracle.nearest(
                          allocator, pq, q, 10, nprobes, refine, null, true, null, false)
                      .stream()
                      .map(LanceOracle.Hit::id)
                      .toList(),
                  truth);
        }
        ourRecall /= queries.length;
        lanceRecall /= queries.length;
        assertThat(ourRecall)
            .as(
                "nprobes=%d refine=%s: ours %.3f vs lance %.3f",
                nprobes, refine, ourRecall, lanceRecall)
            .isGreaterThanOrEqualTo(lanceRecall - 0.01);
      }
    }
  }

  @Test
  void q7PrefilterAndQ8PostfilterReturnTheSameRowCountsAsLance() {
    for (String filter : List.of("tenant_id = 42", "tenant_id < 3", "tenant_id >= 60")) {
      for (boolean prefilter : new boolean[] {true, false}) {
        for (float[] q : List.of(queries[0], queries[1], queries[2])) {
          int lance =
              LanceOracle.nearest(allocator, pq, q, 10, 4, null, null, true, filter, prefilter)
                  .size();
          int us =
              ours(
                      pq,
                      VectorQuery.builder("vector")
                          .vector(q)
                          .k(10)
                          .nprobes(4)
                          .filter(filter)
                          .prefilter(prefilter)
                          .columns("id")
                          .build())
                  .size();
          assertThat(us).as("filter %s prefilter %s", filter, prefilter).isEqualTo(lance);
        }
      }
    }
  }

  @Test
  void q9TheTrueNearestNeighbourInAnAppendedFragmentIsFoundAndQ10FastSearchMissesIt() {
    // A query equal to a row of the appended (unindexed) fragment.
    float[] q;
    try (Dataset ds = Dataset.open(pq.toString());
        var rows = ds.take(new long[] {(2L << 32) | 17}, List.of("id", "vector"))) {
      List<Object> row = Rows.of(rows).get(0);
      assertThat(row.get(0)).isEqualTo(6017L);
      @SuppressWarnings("unchecked")
      List<Float> v = (List<Float>) row.get(1);
      q = new float[v.size()];
      for (int i = 0; i < q.length; i++) {
        q[i] = v.get(i);
      }
    }
    assertThat(
            ours(pq, VectorQuery.builder("vector").vector(q).k(5).nprobes(2).columns("id").build()))
        .first()
        .isEqualTo(6017L);
    assertThat(
            ours(
                pq,
                VectorQuery.builder("vector")
                    .vector(q)
                    .k(5)
                    .nprobes(2)
                    .fastSearch(true)
                    .columns("id")
                    .build()))
        .doesNotContain(6017L);
  }

  @Test
  void q3ACosineQueryOnAnL2IndexFallsBackToExactSearchAndExplainSaysWhy() {
    VectorQuery q =
        VectorQuery.builder("vector")
            .vector(queries[3])
            .k(5)
            .metric("cosine")
            .columns("id")
            .build();
    try (Dataset ds = Dataset.open(pq.toString())) {
      String plan = VectorSearch.explain(ds, q);
      assertThat(plan)
          .contains("FlatKnn")
          .doesNotContain("ANNSubIndex")
          .contains(
              "metric mismatch: the query asks for cosine but index vector_idx was built with l2");
    }
    List<Long> exact =
        ours(
            pq,
            VectorQuery.builder("vector")
                .vector(queries[3])
                .k(5)
                .metric("cosine")
                .useIndex(false)
                .columns("id")
                .build());
    assertThat(ours(pq, q)).isEqualTo(exact);
  }

  @Test
  void q5EfMustHoldKTimesRefineFactor() {
    try (Dataset ds = Dataset.open(hnsw.toString())) {
      assertThatThrownBy(
              () ->
                  DistributedSearch.plan(
                      ds,
                      VectorQuery.builder("vector")
                          .vector(queries[0])
                          .k(3)
                          .refineFactor(4)
                          .ef(8)
                          .build()))
          .isInstanceOf(InvalidQueryException.class)
          .hasMessageContaining("ef must be ≥ k × refine_factor")
          .hasMessageContaining("ef=8 < 3 × 4 = 12");
      String plan =
          VectorSearch.explain(
              ds, VectorQuery.builder("vector").vector(queries[0]).k(3).refineFactor(4).build());
      assertThat(plan).contains("type=IVF_HNSW_SQ").contains("ef=18").contains("k=12");
    }
  }

  @Test
  void hnswRecallCloseToLance() {
    double ourRecall = 0;
    double lanceRecall = 0;
    for (float[] q : hnswQueries) {
      List<Long> truth =
          LanceOracle.nearest(allocator, hnsw, q, 10, null, null, null, false, null, false).stream()
              .map(LanceOracle.Hit::id)
              .toList();
      ourRecall +=
          recall(
              ours(
                  hnsw,
                  VectorQuery.builder("vector").vector(q).k(10).nprobes(2).columns("id").build()),
              truth);
      lanceRecall +=
          recall(
              LanceOracle.nearest(allocator, hnsw, q, 10, 2, null, null, true, null, false).stream()
                  .map(LanceOracle.Hit::id)
                  .toList(),
              truth);
    }
    System.out.printf(
        "HNSW recall ours %.4f Lance %.4f%n",
        ourRecall / hnswQueries.length, lanceRecall / hnswQueries.length);
    assertThat(ourRecall / hnswQueries.length)
        .isGreaterThanOrEqualTo(lanceRecall / hnswQueries.length - 0.01);
  }
}
