package dev.lancelot.engine.internal.index.vector.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.index.vector.conformance.ClusteredData;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.index.vector.SearchResult;
import dev.lancelot.engine.internal.index.vector.VectorSegmentSearcher;
import dev.lancelot.engine.internal.index.vector.ivf.IvfModel;
import dev.lancelot.engine.internal.index.vector.pq.PqCodebook;
import dev.lancelot.engine.testing.LanceOracle;
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
 * lancelot builds, Lance reads. Data: {@value #ROWS} × 16 clustered vectors (100 centers), {@value
 * #QUERIES} queries; 16 partitions, PQ with 8 sub-vectors, 20 k-means iterations, HNSW m 8,
 * ef_construction 50, 4 levels, searched with Lance's default ef = k + k/2.
 *
 * <ul>
 *   <li>{@link #lanceUsesOurIndex}: lance-core 7.0.0's nearest query takes its ANN path on our
 *       index (its scan counters show one delta and {@code nprobes} partitions searched); probing
 *       every partition it returns our searcher's candidates (it decodes our codes as we do); and
 *       its recall at nprobes 2 and 4 is at least its recall on an index it built itself with the
 *       same parameters, minus 0.02. "Same parameters" includes the trained model: Lance is given
 *       our IVF centroids and PQ codebook (it still trains SQ bounds and HNSW graphs itself), so
 *       the comparison measures the index, not the luck of two random k-means runs. lance-core's
 *       Java API cannot build IVF_HNSW_FLAT: there the baseline is our own searcher.
 *   <li>{@link #trainingIsAsGoodAsLances}: the model our training produces is as good as Lance's
 *       own: the IVF loss (mean distance of every row to its centroid, in the index's space) and,
 *       given the same centroids, the PQ distortion (mean squared error of the decoded residual),
 *       averaged over four builds on each side, are within 3% of Lance's. Recall of two independent
 *       random builds on data this small varies by about ±0.02 between builds of the same
 *       algorithm, too much to compare directly; these losses vary by about ±1.2% per build.
 * </ul>
 *
 * <p>IVF_SQ/IVF_HNSW_SQ with dot rank by the dot product of raw (uncentred) codes, as Lance does
 * (reproduced, not fixed); their recall is very low and compared all the same.
 */
@Tag("oracle")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LanceReadsOurIndexTest {
  static final int ROWS = 8000;
  static final int QUERIES = 40;
  static final ClusteredData DATA = new ClusteredData(ROWS, 16, 100, QUERIES, 0.5f, 29);
  static final int P = 16;
  static final int K = 10;
  static final int[] NPROBES = {2, 4};
  static final int EXACT_CHECK_QUERIES = 20;
  static final int SUB_VECTORS = 8;
  static final int BUILDS = 4;
  static final int EF = LanceBuiltIndexTest.EF;
  static final int M = LanceBuiltIndexTest.M;
  static final int EF_CONSTRUCTION = LanceBuiltIndexTest.EF_CONSTRUCTION;
  static final int MAX_LEVEL = LanceBuiltIndexTest.MAX_LEVEL;
  private BufferAllocator allocator;

  @BeforeAll
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  void tearDown() {
    allocator.close();
  }

  private VectorIndexSpec spec(IndexType type, DistanceMetric metric, long seed) {
    return VectorIndexSpec.of(type, metric)
        .withNumPartitions(P)
        .withNumSubVectors(SUB_VECTORS)
        .withMaxIters(20)
        .withHnsw(M, EF_CONSTRUCTION, MAX_LEVEL)
        .withSeed(seed)
        .withReplace(true);
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
    "IVF_HNSW_FLAT,l2",
    "IVF_HNSW_FLAT,cosine",
    "IVF_HNSW_FLAT,dot",
    "IVF_HNSW_SQ,l2",
    "IVF_HNSW_SQ,cosine",
    "IVF_HNSW_SQ,dot",
    "IVF_HNSW_PQ,l2",
    "IVF_HNSW_PQ,cosine",
    "IVF_HNSW_PQ,dot"
  })
  void lanceUsesOurIndex(IndexType type, String metricName, @TempDir Path root) {
    DistanceMetric metric = DistanceMetric.parse(metricName);
    Path ours = root.resolve("ours");
    Path theirs = root.resolve("theirs");
    boolean lanceBuilds = type != IndexType.IVF_HNSW_FLAT;
    Integer ef = type.isHnsw() ? EF : null;
    VectorSegmentSearcher searcher;
    Map<Long, Long> ids;
    try (Dataset ds =
        VectorTables.write(allocator, ours, DATA, 0, DATA.rows, WriteMode.CREATE, 2000)) {
      Dataset indexed = VectorIndexes.create(ds, "vector", spec(type, metric, 1));
      ids = VectorTables.idsByAddress(indexed);
      searcher =
          VectorSegmentSearcher.open(indexed, indexed.indexes().segments("vector_idx").get(0));
    }
    if (lanceBuilds) {
      VectorTables.write(allocator, theirs, DATA, 0, DATA.rows, WriteMode.CREATE, 2000).close();
      PqCodebook cb = searcher.reader().codebook();
      LanceVectorOracle.createIndex(
          allocator,
          theirs,
          type,
          metric,
          P,
          SUB_VECTORS,
          20,
          M,
          EF_CONSTRUCTION,
          MAX_LEVEL,
          searcher.reader().ivf().copyCentroids(),
          cb == null ? null : cb.copyCodebook());
    }
    double oursRecall = 0;
    double theirsRecall = 0;
    int shared = 0;
    int total = 0;
    try (org.lance.Dataset lanceOurs = LanceOracle.open(allocator, ours);
        org.lance.Dataset lanceTheirs = lanceBuilds ? LanceOracle.open(allocator, theirs) : null) {
      for (int qi = 0; qi < DATA.queries.length; qi++) {
        float[] q = DATA.queries[qi];
        SearchResult truth = DATA.exact(q, K, metric, null);
        for (int nprobes : NPROBES) {
          LanceVectorOracle.Result onOurs =
              LanceVectorOracle.nearest(lanceOurs, q, K, nprobes, ef, null, true);
          assertThat(onOurs.counts())
              .as("Lance scan counters")
              .containsEntry("deltas_searched", 1L)
              .containsEntry("partitions_searched", (long) nprobes);
          oursRecall += recall(onOurs.ids(), truth);
          if (lanceBuilds) {
            theirsRecall +=
                recall(
                    LanceVectorOracle.nearest(lanceTheirs, q, K, nprobes, ef, null, true).ids(),
                    truth);
          } else {
            int[] probe = Arrays.copyOf(searcher.rankPartitions(q).partitions(), nprobes);
            theirsRecall +=
                ClusteredData.recall(
                    LanceBuiltIndexTest.mapped(searcher.search(q, probe, K, EF, null, null), ids),
                    truth);
          }
        }
        if (qi < EXACT_CHECK_QUERIES) {
          SearchResult candidates =
              searcher.search(q, searcher.rankPartitions(q).partitions(), K, EF, null, null);
          Set<Long> lanceAll =
              new HashSet<>(LanceVectorOracle.nearest(lanceOurs, q, K, P, ef, null, true).ids());
          for (long a : candidates.ids()) {
            total++;
            if (lanceAll.contains(ids.get(a))) {
              shared++;
            }
          }
        }
      }
    }
    oursRecall /= DATA.queries.length * NPROBES.length;
    theirsRecall /= DATA.queries.length * NPROBES.length;
    System.out.printf(
        "Lance on our %s %s: recall@%d (mean over nprobes %s) %.3f, on its own index %.3f;"
            + " all-partition candidates shared with our searcher %d/%d%n",
        type,
        metric.lanceName(),
        K,
        Arrays.toString(NPROBES),
        oursRecall,
        theirsRecall,
        shared,
        total);
    // Float summation order differs from Lance's kernels; near-ties at the k-th place may flip, and
    // a
    // graph walk amplifies them.
    assertThat(shared).isGreaterThanOrEqualTo(total - (type.isHnsw() ? total / 20 : 3));
    assertThat(oursRecall).isGreaterThanOrEqualTo(theirsRecall - 0.02);
  }

  @ParameterizedTest
  @CsvSource({"l2", "cosine", "dot"})
  void trainingIsAsGoodAsLances(String metricName, @TempDir Path root) {
    DistanceMetric metric = DistanceMetric.parse(metricName);
    Path ours = root.resolve("ours");
    Path theirs = root.resolve("theirs");
    VectorTables.write(allocator, theirs, DATA, 0, DATA.rows, WriteMode.CREATE, 2000).close();
    Dataset ds = VectorTables.write(allocator, ours, DATA, 0, DATA.rows, WriteMode.CREATE, 2000);
    double oursIvf = 0;
    double theirsIvf = 0;
    double oursPq = 0;
    double theirsPq = 0;
    for (int build = 0; build < BUILDS; build++) {
      ds = VectorIndexes.create(ds, "vector", spec(IndexType.IVF_PQ, metric, build + 1));
      IndexSegmentReader mine = reader(ds);
      LanceVectorOracle.createIndex(
          allocator, theirs, IndexType.IVF_PQ, metric, P, SUB_VECTORS, 20, 0, 0, 0);
      try (Dataset lance = Dataset.open(theirs.toString())) {
        IndexSegmentReader lances = reader(lance);
        oursIvf += ivfLoss(mine.ivf());
        theirsIvf += ivfLoss(lances.ivf());
      }
      // The codebook alone: Lance trains one on our centroids.
      LanceVectorOracle.createIndex(
          allocator,
          theirs,
          IndexType.IVF_PQ,
          metric,
          P,
          SUB_VECTORS,
          20,
          0,
          0,
          0,
          mine.ivf().copyCentroids(),
          null);
      try (Dataset lance = Dataset.open(theirs.toString())) {
        oursPq += pqDistortion(mine.ivf(), mine.codebook());
        theirsPq += pqDistortion(mine.ivf(), reader(lance).codebook());
      }
    }
    ds.close();
    System.out.printf(
        "Training %s over %d builds: IVF loss ours %.4f, Lance %.4f; PQ distortion ours %.5f,"
            + " Lance %.5f%n",
        metric.lanceName(),
        BUILDS,
        oursIvf / BUILDS,
        theirsIvf / BUILDS,
        oursPq / BUILDS,
        theirsPq / BUILDS);
    assertThat(oursIvf).isLessThanOrEqualTo(theirsIvf + 0.03 * Math.abs(theirsIvf));
    assertThat(oursPq).isLessThanOrEqualTo(theirsPq * 1.03);
  }

  private static IndexSegmentReader reader(Dataset ds) {
    return IndexSegmentReader.open(
        DatasetInternals.context(ds).io(),
        DatasetInternals.context(ds)
            .paths()
            .indexDir(ds.indexes().segments("vector_idx").get(0).uuid().toString()));
  }

  /**
   * Mean distance of every row to its assigned centroid, in the index's space (unit vectors for
   * cosine).
   */
  private static double ivfLoss(IvfModel ivf) {
    int[] parts = new int[ROWS];
    float[] dists = new float[ROWS];
    ivf.assign(DATA.vectors, 0, ROWS, parts, dists);
    double sum = 0;
    for (float d : dists) {
      sum += d;
    }
    return sum / ROWS;
  }

  /** Mean squared error between each row's code space vector and its PQ reconstruction. */
  private static double pqDistortion(IvfModel ivf, PqCodebook cb) {
    int dim = ivf.dimension();
    int[] parts = new int[ROWS];
    ivf.assign(DATA.vectors, 0, ROWS, parts, null);
    float[] space = new float[dim];
    float[] decoded = new float[dim];
    byte[] code = new byte[cb.numSubVectors()];
    double err = 0;
    for (int i = 0; i < ROWS; i++) {
      float[] prepared = ivf.prepareQuery(Arrays.copyOfRange(DATA.vectors, i * dim, (i + 1) * dim));
      if (PqCodebook.usesResidual(ivf.metric())) {
        ivf.residual(prepared, 0, parts[i], space, 0);
      } else {
        space = prepared;
      }
      cb.encode(space, 0, code, 0);
      cb.decode(code, 0, 1, decoded, 0);
      for (int d = 0; d < dim; d++) {
        double e = space[d] - decoded[d];
        err += e * e;
      }
      space = new float[dim];
    }
    return err / ROWS;
  }

  static double recall(List<Long> got, SearchResult truth) {
    return ClusteredData.recall(
        new SearchResult(got.stream().mapToLong(Long::longValue).toArray(), new float[got.size()]),
        truth);
  }
}
