package dev.lancelot.engine.internal.query;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.scalar.ScalarIndexQuery;
import dev.lancelot.engine.internal.query.exec.AnnExecutor;
import dev.lancelot.engine.internal.query.exec.FlatKnnExecutor;
import dev.lancelot.engine.internal.query.exec.Merger;
import dev.lancelot.engine.internal.query.exec.UnitResult;
import dev.lancelot.engine.internal.query.plan.AnnUnit;
import dev.lancelot.engine.internal.query.plan.FlatUnit;
import dev.lancelot.engine.internal.query.plan.Planner;
import dev.lancelot.engine.internal.query.plan.SearchPlan;
import dev.lancelot.engine.internal.query.plan.SearchUnit;
import dev.lancelot.engine.query.UnitStats;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.query.VectorSearchResult;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.roaringbitmap.RoaringBitmap;

/**
 * The three steps of a vector search (SPEC Q1–Q14), for whatever runs them: plan on the driver, run
 * each unit where its data is (a thread of the local pool in {@link
 * dev.lancelot.engine.query.VectorSearch#search}, an executor in the Spark connector), merge on the
 * driver. The plan and its units are serializable.
 */
public final class DistributedSearch {
  private DistributedSearch() {}

  /** Plans {@code query} on {@code dataset}'s version: the units to run and how to merge them. */
  public static SearchPlan plan(Dataset dataset, VectorQuery query) {
    return planner().plan(dataset, query);
  }

  /** Runs one unit of a plan against the plan's dataset version (anywhere: thread, executor). */
  public static UnitResult runUnit(Dataset dataset, SearchPlan plan, SearchUnit unit) {
    return runUnit(dataset, plan, unit, null, 1);
  }

  /**
   * Runs one unit; a flat unit may also split its scan over {@code pool} ({@code parallelism}
   * parts) when one is given.
   */
  public static UnitResult runUnit(
      Dataset dataset, SearchPlan plan, SearchUnit unit, ExecutorService pool, int parallelism) {
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
          pool,
          parallelism);
    }
    return AnnExecutor.run(dataset, plan, (AnnUnit) unit);
  }

  /** Merges unit results into the answer (the driver side of a distributed search). */
  public static VectorSearchResult finish(
      Dataset dataset, SearchPlan plan, List<UnitResult> results, long startNanos) {
    List<Merger.Ranked> ranked = Merger.rank(plan, results);
    VectorSchemaRoot rows = Merger.materialize(dataset, plan, ranked);
    List<UnitStats> stats = results.stream().map(UnitResult::stats).toList();
    return QueryInternals.result(plan, rows, stats, System.nanoTime() - startNanos);
  }

  static Planner planner() {
    return new Planner(
        SCALAR_ADVISOR,
        EnumSet.of(
            IndexType.IVF_FLAT,
            IndexType.IVF_PQ,
            IndexType.IVF_SQ,
            IndexType.IVF_RQ,
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
