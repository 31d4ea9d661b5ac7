package dev.lancelot.engine.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.scalar.BTreeBuildParams;
import dev.lancelot.engine.index.scalar.BTreeIndexBuilder;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.internal.query.DistributedSearch;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.ClusteredData;
import dev.lancelot.engine.testing.Rows;
import dev.lancelot.engine.vector.DistanceMetric;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * SPEC Q2, Q4–Q7, Q9, Q12 and Q13 on indexes this project builds: one dataset with two indexed
 * fragments (IVF_PQ, l2, 8 partitions; BTree on {@code tenant_id}) and one fragment appended after
 * the index; a second dataset with an IVF_HNSW_SQ index. Explain trees are compared as whole text,
 * with {@code *} standing for segment ids.
 */
class AnnRulesTest {
  static final int DIM = 16;
  static final int CLUSTERS = 20;
  static BufferAllocator allocator;
  static Path pq;
  static Path hnsw;
  static float[][] queries;

  static void write(Path dir, long first, int rows, WriteMode mode) throws Exception {
    try (VectorSchemaRoot b = ClusteredData.generate(allocator, first, rows, DIM, CLUSTERS, 5);
        ArrowReader r = ArrowStreams.readerOf(allocator, List.of(b))) {
      Dataset.write(dir.toString(), r, WriteOptions.of(mode).withMaxRowsPerFile(1000)).close();
    }
  }

  @BeforeAll
  static void setUp() throws Exception {
    allocator = new RootAllocator();
    pq = Files.createTempDirectory("ann-rules-pq");
    write(pq, 0, 2000, WriteMode.CREATE);
    try (Dataset ds = Dataset.open(pq.toString())) {
      VectorIndexes.create(
              ds,
              "vector",
              VectorIndexSpec.of(IndexType.IVF_PQ, DistanceMetric.L2)
                  .withNumPartitions(8)
                  .withNumSubVectors(4))
          .close();
    }
    try (Dataset ds = Dataset.open(pq.toString())) {
      BTreeIndexBuilder.build(ds, BTreeBuildParams.of("tenant_id")).close();
    }
    write(pq, 2000, 300, WriteMode.APPEND);
    hnsw = Files.createTempDirectory("ann-rules-hnsw");
    write(hnsw, 0, 2000, WriteMode.CREATE);
    try (Dataset ds = Dataset.open(hnsw.toString())) {
      VectorIndexes.create(
              ds,
              "vector",
              VectorIndexSpec.of(IndexType.IVF_HNSW_SQ, DistanceMetric.L2).withNumPartitions(4))
          .close();
    }
    queries = ClusteredData.queries(10, DIM, CLUSTERS, 5, 7);
  }

  @AfterAll
  static void tearDown() {
    allocator.close();
  }

  static VectorQuery.Builder query(int i) {
    return VectorQuery.builder("vector").vector(queries[i]).k(3).columns("id");
  }

  static List<Long> ids(VectorSearchResult r) {
    int col = columnIndex(r, "id");
    return Rows.of(r.rows()).stream().map(row -> (Long) row.get(col)).toList();
  }

  static List<Float> distances(VectorSearchResult r) {
    int col = columnIndex(r, "_distance");
    return Rows.of(r.rows()).stream().map(row -> (Float) row.get(col)).toList();
  }

  static int columnIndex(VectorSearchResult r, String name) {
    return r.rows().getSchema().getFields().stream().map(Field::getName).toList().indexOf(name);
  }

  static UnitStats annStats(VectorSearchResult r) {
    return r.unitStats().stream()
        .filter(s -> s.unitId().startsWith("ann"))
        .findFirst()
        .orElseThrow();
  }

  /** Exact l2 distances of every live row to {@code q}, as (id, distance), nearest first. */
  static List<double[]> exact(Path dir, float[] q) {
    List<double[]> all = new ArrayList<>();
    try (Dataset ds = Dataset.open(dir.toString());
        var batches = ds.newScan().columns(List.of("id", "vector")).batches()) {
      while (batches.hasNext()) {
        try (VectorSchemaRoot b = batches.next()) {
          BigIntVector id = (BigIntVector) b.getVector("id");
          Float4Vector values =
              (Float4Vector) ((FixedSizeListVector) b.getVector("vector")).getDataVector();
          for (int i = 0; i < b.getRowCount(); i++) {
            double d = 0;
            for (int j = 0; j < DIM; j++) {
              double x = values.get(i * DIM + j) - q[j];
              d += x * x;
            }
            all.add(new double[] {id.get(i), d});
          }
        }
      }
    }
    all.sort(Comparator.comparingDouble((double[] e) -> e[1]));
    return all;
  }

  /**
   * Compares an explain tree line by line; {@code *} in the expected text matches any run of
   * characters.
   */
  static void assertTree(String actual, String expected) {
    String regex = Pattern.quote(expected.strip()).replace("*", "\\E.*?\\Q");
    assertThat(actual.strip()).matches(Pattern.compile(regex, Pattern.DOTALL));
  }

  @Test
  void q12ExplainAnnWithUnindexedFragmentAndBTreePrefilter() {
    try (Dataset ds = Dataset.open(pq.toString())) {
      String plan =
          VectorSearch.explain(
              ds,
              query(0)
                  .minimumNprobes(2)
                  .maximumNprobes(4)
                  .refineFactor(4)
                  .filter("tenant_id = 42")
                  .prefilter(true)
                  .build());
      assertTree(
          plan,
          """
          Take: columns=[id], rows=final results only
            TopK: k=3, metric=l2, order=exact _distance then row address
              Union: inputs=2
                Refine: candidate_k=12, metric=l2, exact distances from original vectors
                  ANNSubIndex: unit=ann-0, index=vector_idx, segment=*, type=IVF_PQ, metric=l2, fragments=[0, 1], k=12, nprobes=2..4
                    ANNIvfPartition: minimum_nprobes=2, maximum_nprobes=4, widen_while=fewer than 3 results
                    ScalarIndexQuery: filter=tenant_id = 42, index=tenant_id_idx, stage=prefilter
                FlatKnn: unit=flat-1, fragments=[2], k=3, metric=l2, filter=tenant_id = 42 (prefilter), reason=fragment not covered by index vector_idx
          """);
    }
  }

  @Test
  void q12ExplainPostfilter() {
    try (Dataset ds = Dataset.open(pq.toString())) {
      assertTree(
          VectorSearch.explain(ds, query(0).filter("tenant_id = 42").build()),
          """
          Take: columns=[id], rows=final results only
            Filter: filter=tenant_id = 42, stage=postfilter (applied to the top 3, never backfilled)
              TopK: k=3, metric=l2, order=exact _distance then row address
                Union: inputs=2
                  Refine: candidate_k=3, metric=l2, exact distances from original vectors
                    ANNSubIndex: unit=ann-0, index=vector_idx, segment=*, type=IVF_PQ, metric=l2, fragments=[0, 1], k=3, nprobes=1..all
                      ANNIvfPartition: minimum_nprobes=1, maximum_nprobes=all, widen_while=fewer than 3 results
                  FlatKnn: unit=flat-1, fragments=[2], k=3, metric=l2, reason=fragment not covered by index vector_idx
          """);
    }
  }

  @Test
  void q3q12ExplainMetricFallback() {
    try (Dataset ds = Dataset.open(pq.toString())) {
      String reason =
          "metric mismatch: the query asks for cosine but index vector_idx was built with l2";
      assertTree(
          VectorSearch.explain(ds, query(0).metric(DistanceMetric.COSINE).build()),
          """
          Take: columns=[id], rows=final results only
            TopK: k=3, metric=cosine, order=exact _distance then row address
              Union: inputs=3
                FlatKnn: unit=flat-0, fragments=[0], k=3, metric=cosine, reason=%1$s
                FlatKnn: unit=flat-1, fragments=[1], k=3, metric=cosine, reason=%1$s
                FlatKnn: unit=flat-2, fragments=[2], k=3, metric=cosine, reason=%1$s
          -- %1$s; falling back to flat search
          """
              .formatted(reason));
    }
  }

  @Test
  void q10q12ExplainFastSearch() {
    try (Dataset ds = Dataset.open(pq.toString())) {
      assertTree(
          VectorSearch.explain(ds, query(0).fastSearch(true).build()),
          """
          Take: columns=[id], rows=final results only
            TopK: k=3, metric=l2, order=approximate _distance then row address
              ANNSubIndex: unit=ann-0, index=vector_idx, segment=*, type=IVF_PQ, metric=l2, fragments=[0, 1], k=3, nprobes=1..all
                ANNIvfPartition: minimum_nprobes=1, maximum_nprobes=all, widen_while=fewer than 3 results
          -- fast_search: 1 unindexed fragment(s) not searched
          """);
    }
  }

  @Test
  void q11q12ExplainUseIndexFalse() {
    try (Dataset ds = Dataset.open(pq.toString())) {
      assertTree(
          VectorSearch.explain(ds, query(0).useIndex(false).build()),
          """
          Take: columns=[id], rows=final results only
            TopK: k=3, metric=l2, order=exact _distance then row address
              Union: inputs=3
                FlatKnn: unit=flat-0, fragments=[0], k=3, metric=l2, reason=use_index=false
                FlatKnn: unit=flat-1, fragments=[1], k=3, metric=l2, reason=use_index=false
                FlatKnn: unit=flat-2, fragments=[2], k=3, metric=l2, reason=use_index=false
          -- use_index=false: exact search over every fragment
          """);
    }
  }

  @Test
  void q12AnalyzeReportsWhatEachUnitDid() {
    try (Dataset ds = Dataset.open(pq.toString());
        VectorSearchResult r =
            VectorSearch.search(
                ds, query(0).refineFactor(4).filter("tenant_id = 42").prefilter(true).build())) {
      String analyze = r.analyze();
      assertThat(analyze)
          .containsPattern(
              "ANNSubIndex: .* \\| partitions_probed=\\d+, rows_scanned=\\d+, "
                  + "distances_computed=\\d+, candidates=\\d+, mask=scalar index tenant_id_idx \\(\\d+ rows\\), time=");
      assertThat(analyze)
          .containsPattern("FlatKnn: .* \\| rows_scanned=\\d+, distances_computed=\\d+");
      assertThat(analyze).contains("-- rows returned: " + r.rowCount());
    }
  }

  @Test
  void q2CandidateBudgetAndQ5DefaultEfAreShownAndUsed() {
    try (Dataset ds = Dataset.open(hnsw.toString())) {
      String plan = VectorSearch.explain(ds, query(0).refineFactor(4).build());
      assertThat(plan).contains("Refine: candidate_k=12").contains("k=12, nprobes=1..all, ef=18");
      assertThat(VectorSearch.explain(ds, query(0).refineFactor(4).ef(12).build()))
          .contains("ef=12");
      assertThatThrownBy(() -> DistributedSearch.plan(ds, query(0).refineFactor(4).ef(8).build()))
          .hasMessageContaining("ef must be ≥ k × refine_factor")
          .hasMessageContaining("ef=8 < 3 × 4 = 12")
          .hasMessageContaining("default 18");
      try (VectorSearchResult r = VectorSearch.search(ds, query(0).k(10).refineFactor(2).build())) {
        List<double[]> truth = exact(hnsw, queries[0]);
        assertThat(ids(r)).hasSize(10);
        long hits =
            ids(r).stream()
                .filter(id -> truth.subList(0, 10).stream().anyMatch(e -> (long) e[0] == id))
                .count();
        assertThat(hits).isGreaterThanOrEqualTo(9);
      }
    }
  }

  @Test
  void q4WideningIsACountConditionBoundedByMaximumNprobes() {
    // k = 1 keeps Lance's early-pruning rule out of the way (it only raises minimum_nprobes for k >
    // 1).
    float[] q = queries[1];
    float[][] centers = ClusteredData.centers(CLUSTERS, DIM, 5);
    int far = 0;
    for (int c = 1; c < CLUSTERS; c++) {
      if (l2(centers[c], q) > l2(centers[far], q)) {
        far = c;
      }
    }
    long farCluster = far;
    String farRows = "id IN (" + far + ", " + (far + CLUSTERS) + ", " + (far + 2 * CLUSTERS) + ")";
    try (Dataset ds = Dataset.open(pq.toString())) {
      // Without a filter the nearest partition already holds k rows: no widening even when
      // unbounded.
      try (VectorSearchResult r = VectorSearch.search(ds, query(1).k(1).fastSearch(true).build())) {
        assertThat(r.rowCount()).isEqualTo(1);
        assertThat(annStats(r).partitionsProbed()).isEqualTo(1);
      }
      // The prefilter admits only rows of the farthest cluster: the nearest partition finds none,
      // so the
      // search widens one partition at a time until it finds one, within maximum_nprobes.
      try (VectorSearchResult r =
          VectorSearch.search(
              ds, query(1).k(1).filter(farRows).prefilter(true).fastSearch(true).build())) {
        assertThat(annStats(r).maskRows()).isEqualTo(3);
        assertThat(ids(r)).hasSize(1).allMatch(id -> id % CLUSTERS == farCluster);
        assertThat(annStats(r).partitionsProbed()).isGreaterThan(1);
      }
      try (VectorSearchResult r =
          VectorSearch.search(
              ds,
              query(1)
                  .k(1)
                  .filter(farRows)
                  .prefilter(true)
                  .fastSearch(true)
                  .minimumNprobes(1)
                  .maximumNprobes(1)
                  .build())) {
        assertThat(annStats(r).partitionsProbed()).isEqualTo(1);
        assertThat(r.rowCount())
            .as("maximum_nprobes=1 stops the widening: fewer than k rows")
            .isZero();
      }
    }
  }

  static double l2(float[] a, float[] b) {
    double d = 0;
    for (int i = 0; i < a.length; i++) {
      d += (a[i] - b[i]) * (a[i] - b[i]);
    }
    return d;
  }

  @Test
  void q6RefineReturnsExactDistancesAndNoRefineKeepsApproximateOnes() {
    try (Dataset ds = Dataset.open(pq.toString())) {
      List<double[]> truth = exact(pq, queries[2]);
      try (VectorSearchResult r = VectorSearch.search(ds, query(2).k(5).refineFactor(10).build())) {
        List<Long> got = ids(r);
        List<Float> d = distances(r);
        for (int i = 0; i < got.size(); i++) {
          long id = got.get(i);
          double expected =
              truth.stream().filter(e -> (long) e[0] == id).findFirst().orElseThrow()[1];
          assertThat((double) d.get(i))
              .isCloseTo(expected, org.assertj.core.data.Offset.offset(1e-3 * expected + 1e-4));
        }
        assertThat(d).isSorted();
      }
      try (VectorSearchResult r = VectorSearch.search(ds, query(2).k(5).fastSearch(true).build())) {
        List<Long> got = ids(r);
        List<Float> d = distances(r);
        boolean anyApproximate = false;
        for (int i = 0; i < got.size(); i++) {
          long id = got.get(i);
          double expected =
              truth.stream().filter(e -> (long) e[0] == id).findFirst().orElseThrow()[1];
          anyApproximate |= Math.abs(d.get(i) - expected) > 1e-3 * expected;
        }
        assertThat(anyApproximate).as("PQ distances without refine are approximate").isTrue();
      }
    }
  }

  @Test
  void q7PrefilterAdmittingAtMostKRowsReturnsThemAllWithExactDistancesWithoutProbing() {
    try (Dataset ds = Dataset.open(pq.toString());
        VectorSearchResult r =
            VectorSearch.search(
                ds,
                query(3)
                    .k(5)
                    .filter("id IN (7, 700, 1400)")
                    .prefilter(true)
                    .fastSearch(true)
                    .build())) {
      List<double[]> truth = exact(pq, queries[3]);
      assertThat(ids(r)).containsExactlyInAnyOrder(7L, 700L, 1400L);
      assertThat(annStats(r).partitionsProbed()).isZero();
      List<Float> d = distances(r);
      for (int i = 0; i < 3; i++) {
        long id = ids(r).get(i);
        double expected =
            truth.stream().filter(e -> (long) e[0] == id).findFirst().orElseThrow()[1];
        assertThat((double) d.get(i))
            .isCloseTo(expected, org.assertj.core.data.Offset.offset(1e-3 * expected + 1e-4));
      }
      assertThat(d).isSorted();
    }
  }

  @Test
  void q9RowsDeletedAfterTheIndexBuildNeverComeBack() throws Exception {
    Path copy = Files.createTempDirectory("ann-rules-delete");
    write(copy, 0, 2000, WriteMode.CREATE);
    try (Dataset ds = Dataset.open(copy.toString())) {
      VectorIndexes.create(
              ds,
              "vector",
              VectorIndexSpec.of(IndexType.IVF_FLAT, DistanceMetric.L2).withNumPartitions(4))
          .close();
    }
    List<Long> nearest =
        exact(copy, queries[4]).subList(0, 3).stream().map(e -> (long) e[0]).toList();
    try (Dataset ds = Dataset.open(copy.toString())) {
      ds.delete("id IN (" + nearest.get(0) + ", " + nearest.get(2) + ")").close();
    }
    try (Dataset ds = Dataset.open(copy.toString())) {
      for (boolean fast : new boolean[] {false, true}) {
        try (VectorSearchResult r =
            VectorSearch.search(ds, query(4).k(3).fastSearch(fast).build())) {
          assertThat(ids(r))
              .hasSize(3)
              .doesNotContain(nearest.get(0), nearest.get(2))
              .contains(nearest.get(1));
        }
      }
    }
  }

  @Test
  void q13AnnBatchQueriesEqualSingleQueries() {
    try (Dataset ds = Dataset.open(pq.toString())) {
      List<List<Long>> single = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        try (VectorSearchResult r = VectorSearch.search(ds, query(i).k(5).nprobes(2).build())) {
          single.add(ids(r));
        }
      }
      try (VectorSearchResult r =
          VectorSearch.search(
              ds,
              VectorQuery.builder("vector")
                  .vectors(queries[0], queries[1], queries[2], queries[3])
                  .k(5)
                  .nprobes(2)
                  .columns("id")
                  .build())) {
        assertThat(r.rows().getSchema().getFields().get(0).getName()).isEqualTo("query_index");
        List<List<Object>> rows = Rows.of(r.rows());
        int idCol = columnIndex(r, "id");
        for (int i = 0; i < 4; i++) {
          int qi = i;
          assertThat(
                  rows.stream()
                      .filter(row -> row.get(0).equals(qi))
                      .map(row -> (Long) row.get(idCol))
                      .toList())
              .containsExactlyElementsOf(single.get(i));
        }
      }
    }
  }
}
