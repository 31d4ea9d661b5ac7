package dev.lancelot.engine.query;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.internal.query.DistributedSearch;
import dev.lancelot.engine.internal.query.exec.Futures;
import dev.lancelot.engine.internal.query.exec.UnitResult;
import dev.lancelot.engine.internal.query.plan.SearchPlan;
import dev.lancelot.engine.internal.query.plan.SearchUnit;
import dev.lancelot.engine.vector.DistanceMetric;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Vector search on one dataset version with Lance's semantics (SPEC Q1–Q14). One planner, one set
 * of units, two executors: {@link #search} runs the units on a local thread pool; the Spark
 * connector runs them where the data is and merges on the driver, through the engine's internal
 * distributed-search steps.
 */
public final class VectorSearch {
  private static final int PARALLELISM = Math.max(1, Runtime.getRuntime().availableProcessors());
  private static final ExecutorService POOL =
      Executors.newFixedThreadPool(
          PARALLELISM,
          r -> {
            Thread t = new Thread(r, "lancelot-search");
            t.setDaemon(true);
            return t;
          });

  private VectorSearch() {}

  /**
   * The exact search that {@code query}'s results are judged against (SPEC E1, Q11): the same
   * version, vectors, k, filter and filter placement, with {@code use_index=false}, no {@code
   * fast_search}, and the metric the search itself ranks by — the query's metric when it names one,
   * else the index's (SPEC Q3). Plans {@code query} to learn that metric, so it refuses exactly
   * what the search would refuse.
   */
  public static VectorQuery exactCounterpart(Dataset dataset, VectorQuery query) {
    DistanceMetric metric = DistributedSearch.plan(dataset, query).merge().metric();
    VectorQuery.Builder exact = query.toBuilder().useIndex(false).fastSearch(false).metric(metric);
    return query.hasVectors() ? exact.build() : exact.buildParameters();
  }

  /** The plan tree, without running anything. */
  public static String explain(Dataset dataset, VectorQuery query) {
    return DistributedSearch.plan(dataset, query).explain();
  }

  public static VectorSearchResult search(Dataset dataset, VectorQuery query) {
    long start = System.nanoTime();
    SearchPlan plan = DistributedSearch.plan(dataset, query);
    List<Future<UnitResult>> futures = new ArrayList<>();
    for (SearchUnit unit : plan.units()) {
      futures.add(
          POOL.submit(() -> DistributedSearch.runUnit(dataset, plan, unit, POOL, PARALLELISM)));
    }
    List<UnitResult> results = Futures.collect(futures, false, "Vector search");
    return DistributedSearch.finish(dataset, plan, results, start);
  }
}
