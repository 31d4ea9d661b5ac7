package dev.lancelot.engine.index.vector.conformance;

import dev.lancelot.engine.internal.index.vector.AcceptMask;
import dev.lancelot.engine.internal.index.vector.QueryScorer;
import dev.lancelot.engine.internal.index.vector.SearchResult;
import dev.lancelot.engine.internal.index.vector.SearchStats;
import dev.lancelot.engine.internal.index.vector.TopKCollector;
import dev.lancelot.engine.internal.index.vector.VectorStorage;
import dev.lancelot.engine.internal.index.vector.flat.FlatSearch;
import dev.lancelot.engine.internal.index.vector.flat.FlatStorage;
import dev.lancelot.engine.internal.index.vector.hnsw.HnswBuildParams;
import dev.lancelot.engine.internal.index.vector.hnsw.HnswBuilder;
import dev.lancelot.engine.internal.index.vector.hnsw.HnswGraph;
import dev.lancelot.engine.internal.index.vector.hnsw.HnswSearcher;
import dev.lancelot.engine.internal.index.vector.ivf.IvfBuildParams;
import dev.lancelot.engine.internal.index.vector.ivf.IvfModel;
import dev.lancelot.engine.internal.index.vector.ivf.IvfTrainer;
import dev.lancelot.engine.internal.index.vector.ivf.PartitionRanking;
import dev.lancelot.engine.internal.index.vector.pq.PqBuildParams;
import dev.lancelot.engine.internal.index.vector.pq.PqCodebook;
import dev.lancelot.engine.internal.index.vector.pq.PqCodes;
import dev.lancelot.engine.internal.index.vector.pq.PqStorage;
import dev.lancelot.engine.internal.index.vector.pq.PqTrainer;
import dev.lancelot.engine.internal.index.vector.sq.ScalarQuantizer;
import dev.lancelot.engine.internal.index.vector.sq.SqBuildParams;
import dev.lancelot.engine.internal.index.vector.sq.SqStorage;
import dev.lancelot.engine.vector.DistanceMetric;
import java.util.ArrayList;
import java.util.List;

/**
 * IVF over per-partition storages (FLAT, SQ or PQ), optionally with an HNSW graph per partition,
 * composed the way Lance's IVF index does it: vectors normalized for cosine, assigned to their
 * nearest centroid, PQ encoding residuals for l2/cosine; queries normalized, partitions ranked, the
 * first {@code nprobes} searched, per-partition hits merged in one top-k collector.
 */
public final class IvfComposite implements TestIndex {
  public enum Quantizer {
    FLAT,
    SQ,
    PQ
  }

  private final IvfModel ivf;
  private final Quantizer quantizer;
  private final PqCodebook codebook;
  private final List<VectorStorage> storages = new ArrayList<>();
  private final List<long[]> rowIds = new ArrayList<>();
  private final List<HnswGraph> graphs = new ArrayList<>();
  private final int nprobes;
  private final int ef;
  private final HnswSearcher searcher = new HnswSearcher();

  public IvfComposite(
      float[] vectors,
      int rows,
      int dim,
      DistanceMetric metric,
      IvfBuildParams ivfParams,
      Quantizer quantizer,
      PqBuildParams pqParams,
      HnswBuildParams hnswParams,
      int nprobes,
      int ef) {
    this.quantizer = quantizer;
    this.nprobes = nprobes;
    this.ef = ef;
    this.ivf = IvfTrainer.train(vectors, rows, dim, metric, ivfParams);
    int p = ivf.numPartitions();
    int[] assignment = new int[rows];
    ivf.assign(vectors, 0, rows, assignment, null);
    // Vectors as the index stores them: unit vectors for cosine.
    float[] prepared = vectors.clone();
    if (metric == DistanceMetric.COSINE) {
      for (int r = 0; r < rows; r++) {
        DistanceMetric.normalize(prepared, r * dim, dim);
      }
    }
    float[] codeSpace = prepared;
    if (quantizer == Quantizer.PQ && PqCodebook.usesResidual(metric)) {
      codeSpace = new float[prepared.length];
      for (int r = 0; r < rows; r++) {
        ivf.residual(prepared, r * dim, assignment[r], codeSpace, r * dim);
      }
    }
    this.codebook =
        quantizer == Quantizer.PQ ? PqTrainer.train(codeSpace, rows, dim, metric, pqParams) : null;
    ScalarQuantizer sq =
        quantizer == Quantizer.SQ
            ? ScalarQuantizer.train(
                vectors, rows, dim, metric, new SqBuildParams(8, 256, ivfParams.seed()))
            : null;
    int[] sizes = new int[p];
    for (int a : assignment) {
      sizes[a]++;
    }
    for (int part = 0; part < p; part++) {
      long[] ids = new long[sizes[part]];
      float[] block = new float[sizes[part] * dim];
      int j = 0;
      for (int r = 0; r < rows; r++) {
        if (assignment[r] == part) {
          ids[j] = r;
          System.arraycopy(codeSpace, r * dim, block, j * dim, dim);
          j++;
        }
      }
      VectorStorage storage;
      switch (quantizer) {
        case FLAT:
          storage = FlatStorage.of(block, dim, metric);
          break;
        case SQ:
          storage = SqStorage.of(sq, sq.encodeAll(block, 0, j), j, metric);
          break;
        default:
          storage =
              PqStorage.of(
                  codebook,
                  PqCodes.transpose(codebook.encodeAll(block, 0, j), j, codebook.numSubVectors()),
                  j);
      }
      storages.add(storage);
      rowIds.add(ids);
      graphs.add(
          hnswParams == null
              ? null
              : HnswBuilder.build(storage, hnswParams.withSeed(hnswParams.seed() + part)));
    }
  }

  public IvfModel ivf() {
    return ivf;
  }

  @Override
  public SearchResult search(float[] query, int k, AcceptMask mask, SearchStats stats) {
    TopKCollector collector = new TopKCollector(k);
    PartitionRanking ranking = ivf.rankPartitions(query, nprobes);
    float[] q = ivf.prepareQuery(query);
    float[] residual = new float[q.length];
    for (int i = 0; i < ranking.size(); i++) {
      int part = ranking.partitions()[i];
      VectorStorage storage = storages.get(part);
      if (storage.size() == 0) {
        continue;
      }
      float[] partQuery = q;
      if (quantizer == Quantizer.PQ && PqCodebook.usesResidual(ivf.metric())) {
        ivf.residual(q, 0, part, residual, 0);
        partQuery = residual;
      }
      QueryScorer scorer = storage.scorer(partQuery);
      long[] ids = rowIds.get(part);
      AcceptMask partMask = null;
      if (mask != null) {
        partMask = AcceptMask.none(ids.length);
        for (int n = 0; n < ids.length; n++) {
          if (mask.get((int) ids[n])) {
            partMask.set(n);
          }
        }
      }
      HnswGraph graph = graphs.get(part);
      if (graph == null) {
        FlatSearch.search(scorer, storage.size(), partMask, ids, collector, stats);
      } else {
        searcher.search(graph, scorer, k, ef, partMask, ids, collector);
        if (stats != null) {
          stats.add(searcher.stats());
        }
      }
    }
    return collector.result();
  }
}
