package dev.lancelot.engine.internal.query.exec;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.scalar.ScalarIndexQuery;
import dev.lancelot.engine.index.scalar.ScalarIndexResult;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.index.vector.SearchResult;
import dev.lancelot.engine.internal.index.vector.SearchStats;
import dev.lancelot.engine.internal.index.vector.SortedRowFilter;
import dev.lancelot.engine.internal.index.vector.TopKCollector;
import dev.lancelot.engine.internal.index.vector.VectorSegmentSearcher;
import dev.lancelot.engine.internal.index.vector.ivf.PartitionRanking;
import dev.lancelot.engine.internal.query.plan.AnnUnit;
import dev.lancelot.engine.internal.query.plan.PrefilterSpec;
import dev.lancelot.engine.internal.query.plan.SearchPlan;
import dev.lancelot.engine.internal.table.RowIds;
import dev.lancelot.engine.query.UnitStats;
import dev.lancelot.engine.vector.DistanceMetric;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.roaringbitmap.RoaringBitmap;

/**
 * Runs an {@link AnnUnit}: one index segment (SPEC Q4–Q7).
 *
 * <ol>
 *   <li>The mask of rows the unit may return: live rows of its fragments, passing the prefilter
 *       (from a scalar index or a scan of the filter's columns).
 *   <li>When the prefilter admits at most k rows, all of them are the answer, with exact distances
 *       (Q7).
 *   <li>Otherwise partitions are ranked by centroid distance; the first {@code minimum_nprobes}
 *       (raised by Lance's early-pruning rule, capped at the maximum) are searched, then one more
 *       at a time while fewer than {@code min(k, admitted rows)} results were found, up to {@code
 *       maximum_nprobes} (Q4). HNSW partitions are searched with {@code ef} (Q5).
 *   <li>The best {@code k × refine_factor} candidates by approximate distance are kept; their exact
 *       distances are computed from the original vectors when the plan re-ranks (Q6, Q9).
 * </ol>
 */
public final class AnnExecutor {
  /** Lance's early-pruning factors for k ≤ 1, k ≤ 10 and k > 10. */
  private static final float[] PRUNING = {0.6f, 7f, 81f};

  private AnnExecutor() {}

  public static UnitResult run(Dataset dataset, SearchPlan plan, AnnUnit unit) {
    long start = System.nanoTime();
    IndexSegment segment =
        dataset.indexes().segments(unit.indexName()).stream()
            .filter(s -> s.uuid().toString().equals(unit.segment()))
            .findFirst()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "Segment " + unit.segment() + " is not in version " + dataset.version()));
    VectorSegmentSearcher searcher = VectorSegmentSearcher.cached(dataset, segment);
    PrefilterSpec pre = unit.prefilter();
    PrefilterMask mask =
        pre == null
            ? PrefilterMask.liveRows(dataset, unit.fragments())
            : pre.source() == PrefilterSpec.Source.SCALAR_INDEX
                ? indexMask(dataset, pre, unit.fragments())
                : PrefilterMask.scan(dataset, pre.filter(), unit.fragments());
    // An index of a dataset with stable row ids stores ids: search under the mask as ids, then
    // turn the results into addresses (every accepted id has a live row).
    RowIds rowIds = DatasetInternals.rowIds(dataset);
    SortedRowFilter accept = mask;
    if (rowIds.stable()) {
      // As Lance 7 does, an indexed id is accepted wherever its live row now is (an updated row
      // moved to a fragment the segment does not cover); the exact distance comes from the live
      // row, and the merge keeps one entry per row.
      List<Long> all = new ArrayList<>();
      DatasetInternals.snapshot(dataset).fragments().forEach(f -> all.add(f.getId()));
      PrefilterMask everywhere =
          pre == null
              ? PrefilterMask.liveRows(dataset, all)
              : pre.source() == PrefilterSpec.Source.SCALAR_INDEX
                  ? indexMask(dataset, pre, all)
                  : PrefilterMask.scan(dataset, pre.filter(), all);
      accept = new StableIdFilter(rowIds, everywhere);
    }
    int k = plan.query().k();
    float[][] queries = plan.query().vectors();
    SearchStats stats = new SearchStats();
    long partitionsProbed = 0;
    List<Candidates> perQuery = new ArrayList<>(queries.length);
    long candidates = 0;
    for (float[] q : queries) {
      Candidates c;
      if (pre != null && mask.cardinality() <= k) {
        long[] rows = mask.rowAddresses();
        c = withExact(dataset, plan, unit.metric(), q, rows, null, true);
      } else {
        PartitionRanking ranking = searcher.rankPartitions(q);
        int total = ranking.size();
        int max = unit.maxNprobes() == null ? total : Math.min(unit.maxNprobes(), total);
        int min = Math.min(Math.max(unit.minNprobes(), earlyPruning(ranking.distances(), k)), max);
        TopKCollector collector = new TopKCollector(unit.candidateK());
        searcher.search(
            q,
            Arrays.copyOfRange(ranking.partitions(), 0, min),
            unit.ef(),
            accept,
            collector,
            stats,
            pre != null);
        int probed = min;
        long target = Math.min(k, mask.cardinality());
        while (collector.size() < target && probed < max) {
          searcher.search(
              q,
              new int[] {ranking.partitions()[probed]},
              unit.ef(),
              accept,
              collector,
              stats,
              pre != null);
          probed++;
        }
        partitionsProbed += probed;
        SearchResult r = collector.result();
        long[] rows = rowIds.stable() ? rowIds.addressesOf(r.ids()) : r.ids();
        c =
            unit.exactDistances()
                ? withExact(dataset, plan, unit.metric(), q, rows, r.distances(), false)
                : new Candidates(rows, r.distances(), nanArray(r.size()));
      }
      candidates += c.size();
      perQuery.add(c);
    }
    UnitStats unitStats =
        new UnitStats(
            unit.id(),
            partitionsProbed,
            stats.nodesVisited(),
            stats.distancesComputed(),
            candidates,
            System.nanoTime() - start,
            pre == null ? null : mask.source(),
            mask.cardinality());
    return new UnitResult(unit.id(), perQuery, unitStats);
  }

  private static PrefilterMask indexMask(Dataset dataset, PrefilterSpec pre, List<Long> fragments) {
    ScalarIndexResult answer = ScalarIndexQuery.plan(dataset, pre.filter()).evaluate();
    Map<Long, RoaringBitmap> byFragment = new HashMap<>();
    answer
        .fragmentOffsets()
        .forEach((id, rows) -> byFragment.put(Integer.toUnsignedLong(id), rows));
    return PrefilterMask.fromIndexAnswer(dataset, byFragment, fragments, pre.scalarIndex());
  }

  /**
   * A prefilter mask (over row addresses) asked about stable row ids, as an index of a dataset with
   * stable row ids stores them: an id passes when its live row's address does.
   */
  private static final class StableIdFilter implements SortedRowFilter {
    private final RowIds rowIds;
    private final PrefilterMask mask;
    private volatile long[] ascending;

    StableIdFilter(RowIds rowIds, PrefilterMask mask) {
      this.rowIds = rowIds;
      this.mask = mask;
    }

    @Override
    public boolean test(long id) {
      long address = rowIds.addressOf(id);
      return address != -1 && mask.accepts(address);
    }

    @Override
    public long cardinality() {
      return mask.cardinality();
    }

    @Override
    public long[] rowsAscending() {
      long[] ids = ascending;
      if (ids == null) {
        ids = RowIds.sortedUnsigned(rowIds.idsOf(mask.rowsAscending()));
        ascending = ids;
      }
      return ids;
    }
  }

  /**
   * Lance's rule: probe at least every partition within {@code factor × best} centroid distance.
   */
  static int earlyPruning(float[] sortedDistances, int k) {
    if (sortedDistances.length == 0) {
      return 0;
    }
    float factor = k <= 1 ? PRUNING[0] : k <= 10 ? PRUNING[1] : PRUNING[2];
    float threshold = sortedDistances[0] * factor;
    int n = 0;
    while (n < sortedDistances.length && sortedDistances[n] <= threshold) {
      n++;
    }
    return n;
  }

  /**
   * Exact distances of {@code rows} (read from the original vectors, {@link ExactDistances});
   * approx defaults to exact.
   */
  private static Candidates withExact(
      Dataset dataset,
      SearchPlan plan,
      DistanceMetric metric,
      float[] q,
      long[] rows,
      float[] approx,
      boolean sortByExact) {
    float[] exact = ExactDistances.of(dataset, plan.vectorColumn(), metric, q, rows);
    float[] a = approx == null ? exact.clone() : approx;
    if (!sortByExact) {
      return new Candidates(rows, a, exact);
    }
    Integer[] order = new Integer[rows.length];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    Arrays.sort(
        order,
        (x, y) -> {
          int c = Float.compare(exact[x], exact[y]);
          return c != 0 ? c : Long.compare(rows[x], rows[y]);
        });
    long[] r = new long[rows.length];
    float[] e = new float[rows.length];
    for (int i = 0; i < order.length; i++) {
      r[i] = rows[order[i]];
      e[i] = exact[order[i]];
    }
    return new Candidates(r, e.clone(), e);
  }

  private static float[] nanArray(int n) {
    float[] a = new float[n];
    Arrays.fill(a, Float.NaN);
    return a;
  }
}
