package dev.lancelot.engine.query;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.scalar.ScalarIndexQuery;
import dev.lancelot.engine.internal.query.exec.AnnExecutor;
import dev.lancelot.engine.internal.query.exec.FlatKnnExecutor;
import dev.lancelot.engine.internal.query.exec.Futures;
import dev.lancelot.engine.internal.query.exec.Merger;
import dev.lancelot.engine.internal.query.exec.UnitResult;
import dev.lancelot.engine.internal.query.plan.AnnUnit;
import dev.lancelot.engine.internal.query.plan.FlatUnit;
import dev.lancelot.engine.internal.query.plan.Planner;
import dev.lancelot.engine.internal.query.plan.SearchPlan;
import dev.lancelot.engine.internal.query.plan.SearchUnit;
import dev.lancelot.engine.vector.DistanceMetric;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.roaringbitmap.RoaringBitmap;

/**
 * Vector search on one dataset version with Lance's semantics (SPEC Q1–Q14). One planner, one set
 * of units, two executors: {@link #search} runs the units on a local thread pool; a distributed
 * executor (the Spark connector) runs {@link #runUnit} where the data is and {@link #finish} on the
 * driver.
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

  public static SearchPlan plan(Dataset dataset, VectorQuery query) {
    return planner().plan(dataset, query);
  }

  /**
   * The exact search that {@code query}'s results are judged against (SPEC E1, Q11): the same
   * version, vectors, k, filter and filter placement, with {@code use_index=false}, no {@code
   * fast_search}, and the metric the search itself ranks by — the query's metric when it names one,
   * else the index's (SPEC Q3). Plans {@code query} to learn that metric, so it refuses exactly
   * what the search would refuse.
   */
  public static VectorQuery exactCounterpart(Dataset dataset, VectorQuery query) {
    DistanceMetric metric = plan(dataset, query).merge().metric();
    return query.toBuilder().useIndex(false).fastSearch(false).metric(metric).build();
  }

  /** The plan tree, without running anything. */
  public static String explain(Dataset dataset, VectorQuery query) {
    return plan(dataset, query).explain();
  }

  public static VectorSearchResult search(Dataset dataset, VectorQuery query) {
    long start = System.nanoTime();
    SearchPlan plan = plan(dataset, query);
    List<Future<UnitResult>> futures = new ArrayList<>();
    for (SearchUnit unit : plan.units()) {
      futures.add(POOL.submit(() -> runUnit(dataset, plan, unit, true)));
    }
    List<UnitResult> results = Futures.collect(futures, false, "Vector search");
    return finish(dataset, plan, results, start);
  }

  /** Runs one unit of a plan against the plan's dataset version (anywhere: thread, executor). */
  public static UnitResult runUnit(Dataset dataset, SearchPlan plan, SearchUnit unit) {
    return runUnit(dataset, plan, unit, false);
  }

  /** {@code local}: the unit runs on the local pool, which may also scan parts of a flat unit. */
  private static UnitResult runUnit(
      Dataset dataset, SearchPlan plan, SearchUnit unit, boolean local) {
    if (dataset.version() != plan.version()) {
      throw new IllegalStateException(
          "Unit planned on version " + plan.version() + " run on " + dataset.version());
    }
    VectorQuery q = plan.query();
    if (unit instanceof FlatUnit f) {
      return FlatKnnExecutor.run(
          dataset,
          f,
          plan.vectorColumn(),
          q.vectors(),
          q.lowerBound().orElse(null),
          q.upperBound().orElse(null),
          local ? POOL : null,
          local ? PARALLELISM : 1);
    }
    return AnnExecutor.run(dataset, plan, (AnnUnit) unit);
  }

  /** Merges unit results into the answer (the driver side of a distributed search). */
  public static VectorSearchResult finish(
      Dataset dataset, SearchPlan plan, List<UnitResult> results, long startNanos) {
    List<Merger.Ranked> ranked = Merger.rank(plan, results);
    VectorSchemaRoot rows = Merger.materialize(dataset, plan, ranked);
    List<UnitStats> stats = results.stream().map(UnitResult::stats).toList();
    return new VectorSearchResult(plan, rows, stats, System.nanoTime() - startNanos);
  }

  static Planner planner() {
    return new Planner(
        SCALAR_ADVISOR,
        java.util.EnumSet.of(
            IndexType.IVF_FLAT,
            IndexType.IVF_PQ,
            IndexType.IVF_SQ,
            IndexType.IVF_HNSW_FLAT,
            IndexType.IVF_HNSW_SQ,
            IndexType.IVF_HNSW_PQ));
  }

  /**
   * BTree indexes serve a prefilter when they answer it exactly and cover the unit's fragments
   * (SPEC Q7).
   */
  private static final Planner.ScalarIndexAdvisor SCALAR_ADVISOR =
      new Planner.ScalarIndexAdvisor() {
        @Override
        public Optional<String> indexFor(
            Dataset dataset, BoundPredicate filter, List<Long> needed) {
          ScalarIndexQuery q = ScalarIndexQuery.plan(dataset, filter);
          return q.isExact() && q.covers(bitmap(needed))
              ? Optional.of(String.join(", ", q.indexes()))
              : Optional.empty();
        }

        @Override
        public String whyNot(Dataset dataset, BoundPredicate filter, List<Long> needed) {
          ScalarIndexQuery q = ScalarIndexQuery.plan(dataset, filter);
          if (!q.isExact()) {
            return q.reason().orElse("no scalar index answers the filter exactly");
          }
          RoaringBitmap missing = bitmap(needed);
          missing.andNot(q.coveredFragments());
          return "scalar index "
              + String.join(", ", q.indexes())
              + " does not cover fragments "
              + missing;
        }
      };

  private static RoaringBitmap bitmap(List<Long> fragments) {
    RoaringBitmap b = new RoaringBitmap();
    fragments.forEach(f -> b.add(Math.toIntExact(f)));
    return b;
  }
}
