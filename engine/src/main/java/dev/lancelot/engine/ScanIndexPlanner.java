package dev.lancelot.engine;

import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.index.scalar.ScalarIndexQuery;
import dev.lancelot.engine.index.scalar.ScalarIndexResult;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.roaringbitmap.RoaringBitmap;

/**
 * Decides which rows of which fragments a filtered scan reads (decision D52): the parts of the
 * filter that BTree or bitmap indexes answer are evaluated once, when the scan is planned, and each
 * covered fragment is read at the selected live offsets only; a covered fragment with no selected
 * row is skipped; a fragment some index does not cover is read in full. Zone-map and bloom-filter
 * indexes select the rows of the zones that may match (decision D59). The filter is always applied
 * again to the rows read.
 */
final class ScanIndexPlanner {
  /**
   * A selection holding more than this share of a fragment's physical rows is not used: streaming
   * the fragment then reads about as much and decodes faster than taking the rows one by one.
   */
  static final double DENSE_SHARE = 0.5;

  /** The outcome: how indexes are used, and the selected offsets per fragment id. */
  record Plan(ScanIndexUse use, Map<Long, RoaringBitmap> selections) {
    /** The offsets to read of fragment {@code fragmentId}: null for every row, empty to skip it. */
    RoaringBitmap selectionOf(long fragmentId) {
      return selections.get(fragmentId);
    }
  }

  private ScanIndexPlanner() {}

  static Plan plan(Dataset dataset, BoundPredicate filter, List<DataFragment> fragments) {
    if (filter == null) {
      return new Plan(ScanIndexUse.none("no filter"), Map.of());
    }
    ScalarIndexQuery query = ScalarIndexQuery.planSuperset(dataset, filter);
    if (!query.isAnswered()) {
      return new Plan(ScanIndexUse.none(query.explain()), Map.of());
    }
    RoaringBitmap scanned = new RoaringBitmap();
    fragments.forEach(f -> scanned.add((int) f.getId()));
    if (!RoaringBitmap.intersects(scanned, query.coveredFragments())) {
      return new Plan(
          ScanIndexUse.none(
              query.explain() + "; the indexes cover none of the scanned fragments, not read"),
          Map.of());
    }
    ScalarIndexResult answer = query.evaluate().withoutDeletedRows(dataset);
    RoaringBitmap covered = answer.coveredFragments();
    Map<Long, RoaringBitmap> selections = new HashMap<>();
    long rowsSelected = 0;
    int skipped = 0;
    int full = 0;
    for (DataFragment f : fragments) {
      if (!covered.contains((int) f.getId())) {
        full++;
        continue;
      }
      RoaringBitmap offsets = answer.offsets((int) f.getId());
      rowsSelected += offsets.getLongCardinality();
      if (offsets.isEmpty()) {
        skipped++;
        selections.put(f.getId(), offsets);
      } else if (offsets.getLongCardinality() > DENSE_SHARE * f.getPhysicalRows()) {
        full++;
      } else {
        selections.put(f.getId(), offsets);
      }
    }
    String explain =
        query.explain()
            + "; scan: "
            + rowsSelected
            + " rows selected, "
            + answer.segmentsSearched()
            + " index lookups, "
            + answer.pagesRead()
            + "/"
            + answer.pagesTotal()
            + " index pages read, fragments: "
            + (fragments.size() - skipped - full)
            + " read by selection, "
            + skipped
            + " skipped, "
            + full
            + " read in full";
    return new Plan(
        new ScanIndexUse(
            true,
            explain,
            query.indexes(),
            query.isExact(),
            answer.segmentsSearched(),
            rowsSelected,
            skipped,
            full),
        selections);
  }
}
