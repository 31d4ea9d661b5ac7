package dev.lancelot.engine.index.vector.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.vector.SearchResult;
import dev.lancelot.engine.index.vector.SearchStats;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.index.vector.VectorSegmentSearcher;
import dev.lancelot.engine.index.vector.conformance.ClusteredData;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.vector.DistanceMetric;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * lancelot builds, Lance reads: lance-core 7.0.0's nearest query runs its ANN path on our index
 * (its scan counters show one delta searched, {@code nprobes} partitions searched, the index
 * loaded), probing every partition it returns exactly our searcher's candidates (so it decodes our
 * codes as we do), and with fewer probes its recall is at least its recall on an index it built
 * itself with the same parameters, minus 0.02.
 *
 * <p>Data: {@value #ROWS} × 16 clustered vectors (100 centers), {@value #QUERIES} queries; 16
 * partitions, PQ with 4 sub-vectors, 20 k-means iterations. Recall is averaged over nprobes 2 and
 * 4 and over four builds on each side: both builds are randomized (Lance's unseeded), and on data
 * this small one build's recall at one nprobes varies by about ±0.02 from build to build.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LanceReadsOurIndexTest {
  static final int ROWS = 8000;
  static final int QUERIES = 60;
  static final ClusteredData DATA = new ClusteredData(ROWS, 16, 100, QUERIES, 0.5f, 29);
  static final int P = 16;
  static final int K = 10;
  static final int[] NPROBES = {2, 4};
  static final int BUILDS = 4;
  static final int EXACT_CHECK_QUERIES = 20;
  private BufferAllocator allocator;

  @BeforeAll
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  void tearDown() {
    allocator.close();
  }

  @ParameterizedTest
  @CsvSource({"IVF_FLAT,l2", "IVF_FLAT,cosine", "IVF_FLAT,dot", "IVF_PQ,l2", "IVF_PQ,cosine", "IVF_PQ,dot",
      "IVF_SQ,l2", "IVF_SQ,cosine", "IVF_SQ,dot"})
  void lanceUsesOurIndex(IndexType type, String metricName, @TempDir Path root) {
    DistanceMetric metric = DistanceMetric.parse(metricName);
    Path ours = root.resolve("ours");
    Path theirs = root.resolve("theirs");
    VectorTables.write(allocator, theirs, DATA, 0, DATA.rows, WriteMode.CREATE, 2000).close();
    Dataset ds = VectorTables.write(allocator, ours, DATA, 0, DATA.rows, WriteMode.CREATE, 2000);
    Map<Long, Long> ids = VectorTables.idsByAddress(ds);
    double oursRecall = 0;
    double theirsRecall = 0;
    int shared = 0;
    int total = 0;
    for (int build = 0; build < BUILDS; build++) {
      LanceVectorOracle.createIndex(allocator, theirs, type, metric, P, 4, 20, 0, 0, 0);
      ds = VectorIndexes.create(ds, "vector", VectorIndexSpec.of(type, metric).withNumPartitions(P)
          .withNumSubVectors(4).withMaxIters(20).withSeed(build + 1).withReplace(true));
      VectorSegmentSearcher searcher = VectorSegmentSearcher.open(ds, ds.indexes().segments("vector_idx").get(0));
      try (org.lance.Dataset lanceOurs = LanceOracle.open(allocator, ours);
           org.lance.Dataset lanceTheirs = LanceOracle.open(allocator, theirs)) {
        for (int qi = 0; qi < DATA.queries.length; qi++) {
          float[] q = DATA.queries[qi];
          SearchResult truth = DATA.exact(q, K, metric, null);
          for (int nprobes : NPROBES) {
            LanceVectorOracle.Result onOurs = LanceVectorOracle.nearest(lanceOurs, q, K, nprobes, null, null, true);
            assertThat(onOurs.counts()).as("Lance scan counters").containsEntry("deltas_searched", 1L)
                .containsEntry("partitions_searched", (long) nprobes);
            oursRecall += recall(onOurs.ids(), truth);
            theirsRecall += recall(LanceVectorOracle.nearest(lanceTheirs, q, K, nprobes, null, null, true).ids(),
                truth);
          }
          if (build == 0 && qi < EXACT_CHECK_QUERIES) {
            SearchResult candidates = searcher.search(q, searcher.rankPartitions(q).partitions(), K, K, null, null);
            Set<Long> lanceAll = new HashSet<>(LanceVectorOracle.nearest(lanceOurs, q, K, P, null, null, true).ids());
            for (long a : candidates.ids()) {
              total++;
              if (lanceAll.contains(ids.get(a))) {
                shared++;
              }
            }
          }
        }
      }
    }
    ds.close();
    int samples = BUILDS * DATA.queries.length * NPROBES.length;
    oursRecall /= samples;
    theirsRecall /= samples;
    System.out.printf("Lance on our %s %s: recall@%d (mean over %d builds, nprobes %s) %.3f, on its own index %.3f;"
        + " all-partition candidates shared with our searcher %d/%d%n", type, metric.lanceName(), K, BUILDS,
        java.util.Arrays.toString(NPROBES), oursRecall, theirsRecall, shared, total);
    assertThat(shared).isGreaterThanOrEqualTo(total - 3);
    assertThat(oursRecall).isGreaterThanOrEqualTo(theirsRecall - 0.02);
  }

  static double recall(List<Long> got, SearchResult truth) {
    return ClusteredData.recall(new SearchResult(got.stream().mapToLong(Long::longValue).toArray(),
        new float[got.size()]), truth);
  }
}
