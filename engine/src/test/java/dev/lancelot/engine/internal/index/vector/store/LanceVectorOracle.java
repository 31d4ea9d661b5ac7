package dev.lancelot.engine.internal.index.vector.store;

import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.vector.DistanceMetric;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.Dataset;
import org.lance.index.DistanceType;
import org.lance.index.IndexParams;
import org.lance.index.vector.HnswBuildParams;
import org.lance.index.vector.IvfBuildParams;
import org.lance.index.vector.PQBuildParams;
import org.lance.index.vector.SQBuildParams;
import org.lance.index.vector.VectorIndexParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.Query;
import org.lance.ipc.ScanOptions;

/**
 * lance-core 7.0.0 as the oracle for vector indexes: builds them, and runs nearest queries with
 * stats.
 */
final class LanceVectorOracle {
  private LanceVectorOracle() {}

  static DistanceType distanceType(DistanceMetric m) {
    return switch (m) {
      case L2 -> DistanceType.L2;
      case COSINE -> DistanceType.Cosine;
      case DOT -> DistanceType.Dot;
      default -> throw new IllegalArgumentException(m.toString());
    };
  }

  /** Builds index {@code vector_idx} on column {@code vector} with Lance (replacing any). */
  static void createIndex(
      BufferAllocator allocator,
      Path dir,
      IndexType type,
      DistanceMetric metric,
      int partitions,
      int subVectors,
      int maxIters,
      int m,
      int efConstruction,
      int maxLevel) {
    createIndex(
        allocator,
        dir,
        type,
        metric,
        partitions,
        subVectors,
        maxIters,
        m,
        efConstruction,
        maxLevel,
        null,
        null);
  }

  /**
   * As above, with given IVF centroids ({@code [P, dim]}) and PQ codebook (Lance's layout) when not
   * null: Lance then skips training them.
   */
  static void createIndex(
      BufferAllocator allocator,
      Path dir,
      IndexType type,
      DistanceMetric metric,
      int partitions,
      int subVectors,
      int maxIters,
      int m,
      int efConstruction,
      int maxLevel,
      float[] centroids,
      float[] codebook) {
    DistanceType dt = distanceType(metric);
    IvfBuildParams.Builder ivfBuilder =
        new IvfBuildParams.Builder().setNumPartitions(partitions).setMaxIters(maxIters);
    if (centroids != null) {
      ivfBuilder.setCentroids(centroids);
    }
    IvfBuildParams ivf = ivfBuilder.build();
    PQBuildParams.Builder pqBuilder =
        new PQBuildParams.Builder()
            .setNumSubVectors(subVectors)
            .setNumBits(8)
            .setMaxIters(maxIters);
    if (codebook != null) {
      pqBuilder.setCodebook(codebook);
    }
    PQBuildParams pq = pqBuilder.build();
    SQBuildParams sq = new SQBuildParams.Builder().setNumBits((short) 8).build();
    HnswBuildParams hnsw =
        new HnswBuildParams.Builder()
            .setM(m)
            .setEfConstruction(efConstruction)
            .setMaxLevel((short) maxLevel)
            .build();
    VectorIndexParams params =
        switch (type) {
          case IVF_FLAT -> new VectorIndexParams.Builder(ivf).setDistanceType(dt).build();
          case IVF_PQ -> VectorIndexParams.withIvfPqParams(dt, ivf, pq);
          case IVF_SQ ->
              new VectorIndexParams.Builder(ivf).setDistanceType(dt).setSqParams(sq).build();
          case IVF_HNSW_SQ -> VectorIndexParams.withIvfHnswSqParams(dt, ivf, hnsw, sq);
          case IVF_HNSW_PQ -> VectorIndexParams.withIvfHnswPqParams(dt, ivf, hnsw, pq);
          default ->
              throw new IllegalArgumentException("lance-core's Java API cannot build " + type);
        };
    try (Dataset ds = LanceOracle.open(allocator, dir)) {
      ds.createIndex(
          List.of("vector"),
          org.lance.index.IndexType.valueOf(type.name()),
          Optional.of("vector_idx"),
          IndexParams.builder().setVectorIndexParams(params).build(),
          true);
    }
  }

  /** Ids and {@code _distance} of a nearest query, plus Lance's scan counters. */
  record Result(
      List<Long> ids,
      List<Float> distances,
      Map<String, Long> counts,
      long indicesLoaded,
      long partsLoaded) {}

  static Result nearest(
      BufferAllocator allocator,
      Path dir,
      float[] q,
      int k,
      int nprobes,
      Integer ef,
      DistanceMetric metric,
      boolean useIndex) {
    try (Dataset ds = LanceOracle.open(allocator, dir)) {
      return nearest(ds, q, k, nprobes, ef, metric, useIndex);
    }
  }

  /** A nearest query on an open Lance dataset (reuses Lance's index cache across queries). */
  static Result nearest(
      Dataset ds,
      float[] q,
      int k,
      int nprobes,
      Integer ef,
      DistanceMetric metric,
      boolean useIndex) {
    Query.Builder qb =
        new Query.Builder()
            .setColumn("vector")
            .setKey(q)
            .setK(k)
            .setNprobes(nprobes)
            .setUseIndex(useIndex);
    if (ef != null) {
      qb.setEf(ef);
    }
    if (metric != null) {
      qb.setDistanceType(distanceType(metric));
    }
    List<Long> ids = new ArrayList<>();
    List<Float> dists = new ArrayList<>();
    try (LanceScanner scanner =
        ds.newScan(
            new ScanOptions.Builder()
                .nearest(qb.build())
                .columns(List.of("id"))
                .collectStats(true)
                .build())) {
      try (ArrowReader reader = scanner.scanBatches()) {
        while (reader.loadNextBatch()) {
          VectorSchemaRoot root = reader.getVectorSchemaRoot();
          BigIntVector id = (BigIntVector) root.getVector("id");
          for (int i = 0; i < root.getRowCount(); i++) {
            ids.add(id.get(i));
            dists.add(((Number) root.getVector("_distance").getObject(i)).floatValue());
          }
        }
      }
      var stats = scanner.getStats().orElseThrow();
      return new Result(
          ids, dists, stats.getAllCounts(), stats.getIndicesLoaded(), stats.getPartsLoaded());
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
  }
}
