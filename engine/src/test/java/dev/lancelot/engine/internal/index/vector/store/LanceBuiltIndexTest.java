package dev.lancelot.engine.internal.index.vector.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.vector.conformance.ClusteredData;
import dev.lancelot.engine.internal.index.vector.SearchResult;
import dev.lancelot.engine.internal.index.vector.SearchStats;
import dev.lancelot.engine.internal.index.vector.VectorSegmentSearcher;
import dev.lancelot.engine.vector.DistanceMetric;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Lance builds, lancelot reads: for each index type lance-core 7.0.0 builds from Java and each
 * metric, our searcher over Lance's files, probing every partition, picks the same candidates as
 * Lance's own nearest query ({@code nprobes = P}, no refine; for HNSW the same {@code ef}, Lance's
 * default {@code k + k/2}), and with fewer probes its recall against brute force is within 0.02 of
 * Lance's. lance-core's Java API cannot build IVF_HNSW_FLAT (it insists on PQ or SQ with HNSW).
 */
@Tag("oracle")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LanceBuiltIndexTest {
  static final ClusteredData DATA = new ClusteredData(3000, 16, 30, 20, 0.5f, 23);
  static final int P = 8;
  static final int K = 10;

  /** Lance's default HNSW search width for k = 10 without refine: k + k/2. */
  static final int EF = K + K / 2;

  static final int M = 8;
  static final int EF_CONSTRUCTION = 50;
  static final int MAX_LEVEL = 4;
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
  @CsvSource({
    "IVF_FLAT,l2",
    "IVF_FLAT,cosine",
    "IVF_FLAT,dot",
    "IVF_PQ,l2",
    "IVF_PQ,cosine",
    "IVF_PQ,dot",
    "IVF_SQ,l2",
    "IVF_SQ,cosine",
    "IVF_SQ,dot",
    "IVF_HNSW_SQ,l2",
    "IVF_HNSW_SQ,cosine",
    "IVF_HNSW_SQ,dot",
    "IVF_HNSW_PQ,l2",
    "IVF_HNSW_PQ,cosine",
    "IVF_HNSW_PQ,dot"
  })
  void sameCandidatesAsLanceOnLanceBuiltIndex(
      IndexType type, String metricName, @TempDir Path dir) {
    DistanceMetric metric = DistanceMetric.parse(metricName);
    VectorTables.write(allocator, dir, DATA, 0, DATA.rows, WriteMode.CREATE, 1000).close();
    LanceVectorOracle.createIndex(
        allocator, dir, type, metric, P, 4, 20, M, EF_CONSTRUCTION, MAX_LEVEL);
    try (Dataset ds = Dataset.open(dir.toString())) {
      IndexSegment seg = ds.indexes().segments("vector_idx").get(0);
      VectorSegmentSearcher s = VectorSegmentSearcher.open(ds, seg);
      assertThat(s.type()).isEqualTo(type);
      assertThat(s.metric()).isEqualTo(metric);
      assertThat(s.numPartitions()).isEqualTo(P);
      assertThat(s.numRows()).isEqualTo(DATA.rows);
      Map<Long, Long> ids = VectorTables.idsByAddress(ds);
      int shared = 0;
      int total = 0;
      double oursRecall = 0;
      double lanceRecall = 0;
      for (float[] q : DATA.queries) {
        SearchResult all =
            s.search(q, s.rankPartitions(q).partitions(), K, EF, null, new SearchStats());
        LanceVectorOracle.Result lance =
            LanceVectorOracle.nearest(allocator, dir, q, K, P, null, null, true);
        Set<Long> lanceIds = new HashSet<>(lance.ids());
        for (long a : all.ids()) {
          total++;
          if (lanceIds.contains(ids.get(a))) {
            shared++;
          }
        }
        if (type == IndexType.IVF_FLAT) {
          // Exact storage: same rows, same distances, same order.
          for (int i = 0; i < all.size(); i++) {
            assertThat(ids.get(all.ids()[i])).isEqualTo(lance.ids().get(i));
            assertThat(all.distances()[i])
                .isCloseTo(
                    lance.distances().get(i),
                    org.assertj.core.data.Offset.offset(
                        1e-4f * (1 + Math.abs(lance.distances().get(i)))));
          }
        }
        int[] two = Arrays.copyOf(s.rankPartitions(q).partitions(), 2);
        SearchResult few = s.search(q, two, K, EF, null, new SearchStats());
        SearchResult truth = DATA.exact(q, K, metric, null);
        oursRecall += ClusteredData.recall(mapped(few, ids), truth);
        List<Long> lanceFew =
            LanceVectorOracle.nearest(allocator, dir, q, K, 2, null, null, true).ids();
        lanceRecall +=
            ClusteredData.recall(
                new SearchResult(
                    lanceFew.stream().mapToLong(Long::longValue).toArray(),
                    new float[lanceFew.size()]),
                truth);
      }
      oursRecall /= DATA.queries.length;
      lanceRecall /= DATA.queries.length;
      System.out.printf(
          "Lance-built %s %s: all-partition candidates shared %d/%d; nprobes=2 recall@%d ours %.3f,"
              + " Lance %.3f%n",
          type, metric.lanceName(), shared, total, K, oursRecall, lanceRecall);
      // Float summation order differs from Lance's kernels; only near-ties at the k-th place may
      // flip.
      // A graph walk amplifies such ties (a different node enters the beam), so HNSW may differ a
      // little more; its level layout is read exactly (HnswGraphCodec), Lance's loader is not.
      // Dot products of unnormalised vectors over 8-bit SQ codes leave many near-equal approximate
      // distances around the k-th place (measured 178–194 of 200 shared over repeated Lance builds,
      // with recall equal to Lance's every time), so that pairing gets a wider margin; the recall
      // check below is what holds it to Lance's quality.
      int allowed = !type.isHnsw() ? 3 : metric == DistanceMetric.DOT ? total / 7 : total / 20;
      assertThat(shared).as("%s %s", type, metric).isGreaterThanOrEqualTo(total - allowed);
      assertThat(oursRecall).isGreaterThanOrEqualTo(lanceRecall - 0.02);
    }
  }

  static SearchResult mapped(SearchResult r, Map<Long, Long> ids) {
    long[] out = new long[r.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = ids.get(r.ids()[i]);
    }
    return new SearchResult(out, r.distances());
  }
}
