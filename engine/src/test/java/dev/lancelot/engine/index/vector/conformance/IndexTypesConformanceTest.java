package dev.lancelot.engine.index.vector.conformance;

import dev.lancelot.engine.internal.index.vector.AcceptMask;
import dev.lancelot.engine.internal.index.vector.SearchStats;
import dev.lancelot.engine.internal.index.vector.TopKCollector;
import dev.lancelot.engine.internal.index.vector.flat.FlatSearch;
import dev.lancelot.engine.internal.index.vector.hnsw.HnswBuildParams;
import dev.lancelot.engine.internal.index.vector.ivf.IvfBuildParams;
import dev.lancelot.engine.internal.index.vector.pq.PqBuildParams;
import dev.lancelot.engine.vector.DistanceMetric;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/**
 * The conformance suite for each index type. Shared parameters: 64 IVF partitions (50 k-means
 * iterations, sample rate 256, so 16,384 of the 20,000 rows train), nprobes 3; PQ with 16
 * sub-vectors of 2 dimensions, 8 bits, sample rate 32 (8,192 rows) and 15 k-means iterations to
 * keep the test fast; HNSW m 12, ef_construction 64, max_level 7 per partition, ef 40.
 */
@Tag("slow")
class IndexTypesConformanceTest {
  static final int PARTITIONS = 64;
  static final int NPROBES = 3;
  static final int EF = 40;

  static IvfBuildParams ivf(long seed) {
    return new IvfBuildParams(PARTITIONS, 50, 256, seed);
  }

  static PqBuildParams pq(long seed) {
    return new PqBuildParams(16, 8, 15, 32, seed);
  }

  static HnswBuildParams hnsw(long seed) {
    return new HnswBuildParams(12, 64, 7, seed);
  }

  @Nested
  class Flat extends VectorIndexConformanceTest {
    @Override
    protected TestIndex build(ClusteredData data, DistanceMetric metric, long seed) {
      return (float[] q, int k, AcceptMask mask, SearchStats stats) -> {
        TopKCollector c = new TopKCollector(k);
        FlatSearch.search(q, data.vectors, data.dim, metric, mask, null, c, stats);
        return c.result();
      };
    }

    @Override
    protected double minRecall() {
      return 1.0;
    }

    @Override
    protected double maxDistanceFraction() {
      return 1.0;
    }
  }

  @Nested
  class IvfFlat extends VectorIndexConformanceTest {
    @Override
    protected TestIndex build(ClusteredData data, DistanceMetric metric, long seed) {
      return new IvfComposite(
          data.vectors,
          data.rows,
          data.dim,
          metric,
          ivf(seed),
          IvfComposite.Quantizer.FLAT,
          null,
          null,
          NPROBES,
          0);
    }

    @Override
    protected double minRecall() {
      return 0.95;
    }

    @Override
    protected double maxDistanceFraction() {
      return 0.1;
    }
  }

  @Nested
  class IvfFlatCosine extends IvfFlat {
    @Override
    protected DistanceMetric metric() {
      return DistanceMetric.COSINE;
    }
  }

  @Nested
  class IvfFlatDot extends IvfFlat {
    @Override
    protected DistanceMetric metric() {
      return DistanceMetric.DOT;
    }

    @Override
    protected double minRecall() {
      return 0.9;
    }
  }

  @Nested
  class IvfSq extends VectorIndexConformanceTest {
    @Override
    protected TestIndex build(ClusteredData data, DistanceMetric metric, long seed) {
      return new IvfComposite(
          data.vectors,
          data.rows,
          data.dim,
          metric,
          ivf(seed),
          IvfComposite.Quantizer.SQ,
          null,
          null,
          NPROBES,
          0);
    }

    @Override
    protected double minRecall() {
      return 0.9;
    }

    @Override
    protected double maxDistanceFraction() {
      return 0.1;
    }
  }

  @Nested
  class IvfPq extends VectorIndexConformanceTest {
    @Override
    protected TestIndex build(ClusteredData data, DistanceMetric metric, long seed) {
      return new IvfComposite(
          data.vectors,
          data.rows,
          data.dim,
          metric,
          ivf(seed),
          IvfComposite.Quantizer.PQ,
          pq(seed),
          null,
          NPROBES,
          0);
    }

    @Override
    protected double minRecall() {
      return 0.75;
    }

    @Override
    protected double maxDistanceFraction() {
      return 0.1;
    }
  }

  @Nested
  class IvfPqCosine extends IvfPq {
    @Override
    protected DistanceMetric metric() {
      return DistanceMetric.COSINE;
    }
  }

  @Nested
  class IvfHnswFlat extends VectorIndexConformanceTest {
    @Override
    protected TestIndex build(ClusteredData data, DistanceMetric metric, long seed) {
      return new IvfComposite(
          data.vectors,
          data.rows,
          data.dim,
          metric,
          ivf(seed),
          IvfComposite.Quantizer.FLAT,
          null,
          hnsw(seed),
          NPROBES,
          EF);
    }

    @Override
    protected double minRecall() {
      return 0.93;
    }

    @Override
    protected double maxDistanceFraction() {
      return 0.06;
    }
  }

  @Nested
  class IvfHnswSq extends VectorIndexConformanceTest {
    @Override
    protected TestIndex build(ClusteredData data, DistanceMetric metric, long seed) {
      return new IvfComposite(
          data.vectors,
          data.rows,
          data.dim,
          metric,
          ivf(seed),
          IvfComposite.Quantizer.SQ,
          null,
          hnsw(seed),
          NPROBES,
          EF);
    }

    @Override
    protected double minRecall() {
      return 0.9;
    }

    @Override
    protected double maxDistanceFraction() {
      return 0.06;
    }
  }

  @Nested
  class IvfHnswPq extends VectorIndexConformanceTest {
    @Override
    protected TestIndex build(ClusteredData data, DistanceMetric metric, long seed) {
      return new IvfComposite(
          data.vectors,
          data.rows,
          data.dim,
          metric,
          ivf(seed),
          IvfComposite.Quantizer.PQ,
          pq(seed),
          hnsw(seed),
          NPROBES,
          EF);
    }

    @Override
    protected double minRecall() {
      return 0.75;
    }

    @Override
    protected double maxDistanceFraction() {
      return 0.06;
    }
  }
}
