package dev.lancelot.engine.query.exec;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.ScanTask;
import dev.lancelot.engine.Scanner;
import dev.lancelot.engine.index.vector.SearchResult;
import dev.lancelot.engine.index.vector.TopKCollector;
import dev.lancelot.engine.query.plan.FlatUnit;
import dev.lancelot.engine.scan.CloseableIterator;
import dev.lancelot.engine.scan.ScanSpec;
import dev.lancelot.engine.vector.DistanceMetric;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;

/**
 * Exact KNN over a unit's fragments (SPEC Q9–Q11): streams the vector column (plus the filter's
 * columns for a prefilter; deleted rows skipped by the scan), computes exact distances for every
 * query vector and keeps the best {@code limit} per query (ties by row address).
 *
 * <p>Given an {@link Executor} (the local executor's pool), a unit of many rows is cut into row
 * ranges scanned in parallel; the calling thread scans ranges too and takes back any range no
 * other thread has started, so waiting on the pool cannot deadlock. Results do not depend on the
 * split: the best {@code limit} rows are kept by the same total order.
 */
public final class FlatKnnExecutor {
  /** Fewest rows worth a range of their own (smaller units are scanned by one thread). */
  static final long MIN_ROWS_PER_RANGE = 8192;

  private FlatKnnExecutor() {}

  public static UnitResult run(Dataset dataset, FlatUnit unit, String column, float[][] queries, Float lower,
      Float upper) {
    return run(dataset, unit, column, queries, lower, upper, null, 1);
  }

  /**
   * Runs the unit with up to {@code parallelism} row ranges scanned at once on {@code pool} (null:
   * on the calling thread only).
   */
  public static UnitResult run(Dataset dataset, FlatUnit unit, String column, float[][] queries, Float lower,
      Float upper, Executor pool, int parallelism) {
    long start = System.nanoTime();
    Scanner scanner = dataset.newScan().columns(column).filter(unit.filterSql()).withRowAddress(true)
        .fragments(unit.fragments());
    List<ScanTask> whole = scanner.planTasks(Long.MAX_VALUE);
    long rows = whole.stream().mapToLong(ScanTask::physicalRows).sum();
    int parts = pool == null ? 1 : (int) Math.max(1, Math.min(parallelism, rows / MIN_ROWS_PER_RANGE));
    List<ScanTask> tasks = parts == 1 ? whole : scanner.planTasks((rows + parts - 1) / parts);
    Part total;
    if (tasks.size() <= 1 || parts == 1) {
      total = scan(scanner, tasks, unit.metric(), unit.limit(), column, queries, lower, upper);
    } else {
      List<FutureTask<Part>> work = new ArrayList<>(tasks.size());
      for (ScanTask t : tasks) {
        work.add(new FutureTask<>(() -> scan(scanner, List.of(t), unit.metric(), unit.limit(), column, queries,
            lower, upper)));
      }
      // the first range stays here; the others are offered to the pool
      for (int i = 1; i < work.size(); i++) {
        pool.execute(work.get(i));
      }
      total = new Part(unit.limit(), queries.length);
      for (Part p : Futures.collect(work, true, "Flat vector search")) {
        total.add(p);
      }
    }
    List<Candidates> perQuery = new ArrayList<>(queries.length);
    long candidates = 0;
    for (TopKCollector c : total.top) {
      SearchResult r = c.result();
      perQuery.add(Candidates.exact(r.ids(), r.distances()));
      candidates += r.size();
    }
    UnitStats stats = new UnitStats(unit.id(), 0, total.rows, total.distances, candidates, System.nanoTime() - start,
        null, 0);
    return new UnitResult(unit.id(), perQuery, stats);
  }

  /** The best rows per query of some row ranges, with counters. */
  private static final class Part {
    final TopKCollector[] top;
    long rows;
    long distances;

    Part(int limit, int queries) {
      top = new TopKCollector[queries];
      for (int i = 0; i < queries; i++) {
        top[i] = new TopKCollector(limit);
      }
    }

    void add(Part other) {
      for (int q = 0; q < top.length; q++) {
        SearchResult r = other.top[q].result();
        for (int i = 0; i < r.size(); i++) {
          top[q].collect(r.ids()[i], r.distances()[i]);
        }
      }
      rows += other.rows;
      distances += other.distances;
    }
  }

  private static Part scan(Scanner scanner, List<ScanTask> tasks, DistanceMetric metric, int limit, String column,
      float[][] queries, Float lower, Float upper) {
    int dim = queries[0].length;
    Part part = new Part(limit, queries.length);
    VectorBlocks blocks = new VectorBlocks();
    float[] dist = new float[0];
    for (ScanTask task : tasks) {
      try (CloseableIterator<VectorSchemaRoot> it = scanner.execute(task)) {
        while (it.hasNext()) {
          VectorSchemaRoot batch = it.next();
          int n = batch.getRowCount();
          FixedSizeListVector vectors = (FixedSizeListVector) batch.getVector(column);
          UInt8Vector addresses = (UInt8Vector) batch.getVector(ScanSpec.ROW_ADDRESS);
          int kind = blocks.load(vectors);
          if (dist.length < n) {
            dist = new float[n];
          }
          part.rows += n;
          for (int qi = 0; qi < queries.length; qi++) {
            blocks.distances(metric, kind, queries[qi], n, dim, dist);
            part.distances += n;
            TopKCollector c = part.top[qi];
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
    }
    return part;
  }
}
