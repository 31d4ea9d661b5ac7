package dev.lancelot.engine.query.exec;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.index.vector.SearchResult;
import dev.lancelot.engine.index.vector.TopKCollector;
import dev.lancelot.engine.query.plan.FlatUnit;
import dev.lancelot.engine.scan.CloseableIterator;
import dev.lancelot.engine.scan.ScanSpec;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;

/**
 * Exact KNN over a unit's fragments (SPEC Q9–Q11): streams the vector column (plus the filter's
 * columns for a prefilter; deleted rows skipped by the scan), computes exact distances for every
 * query vector and keeps the best {@code limit} per query (ties by row address).
 */
public final class FlatKnnExecutor {
  private FlatKnnExecutor() {}

  public static UnitResult run(Dataset dataset, FlatUnit unit, String column, float[][] queries, Float lower,
      Float upper) {
    long start = System.nanoTime();
    int dim = queries[0].length;
    TopKCollector[] top = new TopKCollector[queries.length];
    for (int i = 0; i < top.length; i++) {
      top[i] = new TopKCollector(unit.limit());
    }
    VectorBlocks blocks = new VectorBlocks();
    float[] dist = new float[0];
    long rows = 0;
    long distances = 0;
    try (CloseableIterator<VectorSchemaRoot> it = dataset.newScan().columns(column).filter(unit.filterSql())
        .withRowAddress(true).fragments(unit.fragments()).batches()) {
      while (it.hasNext()) {
        VectorSchemaRoot batch = it.next();
        int n = batch.getRowCount();
        FixedSizeListVector vectors = (FixedSizeListVector) batch.getVector(column);
        UInt8Vector addresses = (UInt8Vector) batch.getVector(ScanSpec.ROW_ADDRESS);
        int kind = blocks.load(vectors);
        if (dist.length < n) {
          dist = new float[n];
        }
        rows += n;
        for (int qi = 0; qi < queries.length; qi++) {
          blocks.distances(unit.metric(), kind, queries[qi], n, dim, dist);
          distances += n;
          TopKCollector c = top[qi];
          float worst = c.worstDistance();
          for (int r = 0; r < n; r++) {
            float d = dist[r];
            // cheap rejection first: most rows of a large scan cannot enter the top k (NaN fails too)
            if (!(d <= worst) || (lower != null && d < lower) || (upper != null && d >= upper)
                || vectors.isNull(r)) {
              continue;
            }
            if (c.collect(addresses.get(r), d)) {
              worst = c.worstDistance();
            }
          }
        }
      }
    }
    List<Candidates> perQuery = new ArrayList<>(queries.length);
    long candidates = 0;
    for (TopKCollector c : top) {
      SearchResult r = c.result();
      perQuery.add(Candidates.exact(r.ids(), r.distances()));
      candidates += r.size();
    }
    UnitStats stats = new UnitStats(unit.id(), 0, rows, distances, candidates, System.nanoTime() - start,
        null, 0);
    return new UnitResult(unit.id(), perQuery, stats);
  }
}
