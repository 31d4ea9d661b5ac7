package dev.lancelot.engine.index.scalar;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.index.scalar.btree.FragmentRows;
import java.util.Map;
import java.util.SortedMap;
import org.roaringbitmap.RoaringBitmap;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

/**
 * The rows a filter selects according to scalar indexes, as row addresses ({@code (fragment << 32)
 * | offset}), valid for the {@link #coveredFragments()} only: rows of other fragments were not
 * looked at.
 *
 * <p><b>Deleted rows.</b> An index is not updated when rows are deleted after it was built, so the
 * answer may include deleted rows; {@link #withoutDeletedRows(Dataset)} removes them using the
 * dataset version's deletion files. Immutable.
 */
public final class ScalarIndexResult {
  private final FragmentRows rows;
  private final RoaringBitmap coveredFragments;
  private final int pagesRead;
  private final int pagesTotal;
  private final int segmentsSearched;

  ScalarIndexResult(
      FragmentRows rows,
      RoaringBitmap coveredFragments,
      int pagesRead,
      int pagesTotal,
      int segmentsSearched) {
    this.rows = rows;
    this.coveredFragments = coveredFragments.clone();
    this.pagesRead = pagesRead;
    this.pagesTotal = pagesTotal;
    this.segmentsSearched = segmentsSearched;
  }

  /** All selected row addresses. */
  public Roaring64NavigableMap rowAddresses() {
    Roaring64NavigableMap out = new Roaring64NavigableMap();
    for (Map.Entry<Integer, RoaringBitmap> e : rows.byFragment().entrySet()) {
      long high = Integer.toUnsignedLong(e.getKey()) << 32;
      e.getValue().forEach((int offset) -> out.addLong(high | Integer.toUnsignedLong(offset)));
    }
    return out;
  }

  /**
   * Selected row offsets per fragment id (fragments with no selected row are absent); read-only.
   */
  public SortedMap<Integer, RoaringBitmap> fragmentOffsets() {
    return rows.byFragment();
  }

  /** Selected row offsets in one fragment (empty if none, or if the fragment is not covered). */
  public RoaringBitmap offsets(int fragmentId) {
    RoaringBitmap b = rows.byFragment().get(fragmentId);
    return b == null ? new RoaringBitmap() : b.clone();
  }

  /** Whether the row at {@code rowAddress} is selected (e.g. to build a search's accept-mask). */
  public boolean contains(long rowAddress) {
    RoaringBitmap b = rows.byFragment().get((int) (rowAddress >>> 32));
    return b != null && b.contains((int) rowAddress);
  }

  /** Number of selected rows. */
  public long count() {
    return rows.cardinality();
  }

  /** Fragments where this answer is exact (the index covers them and they exist in the version). */
  public RoaringBitmap coveredFragments() {
    return coveredFragments.clone();
  }

  /** BTree pages read from page_data.lance files to compute this answer. */
  public int pagesRead() {
    return pagesRead;
  }

  /** Pages of the index segments that were searched (read or skipped by their lookup entry). */
  public int pagesTotal() {
    return pagesTotal;
  }

  /**
   * Index lookups made: segments searched, one per segment of each index used (an index of several
   * delta segments counts each).
   */
  public int segmentsSearched() {
    return segmentsSearched;
  }

  /** This answer without the rows {@code dataset} (the version it was computed for) has deleted. */
  public ScalarIndexResult withoutDeletedRows(Dataset dataset) {
    FragmentRows kept = rows.copy();
    RoaringBitmap present = new RoaringBitmap();
    for (DataFragment f : DatasetInternals.snapshot(dataset).fragments()) {
      present.add((int) f.getId());
      if (f.hasDeletionFile()) {
        kept.removeAll((int) f.getId(), DatasetInternals.deletedRows(dataset, f));
      }
    }
    kept.retainFragments(present);
    return new ScalarIndexResult(
        kept,
        RoaringBitmap.and(coveredFragments, present),
        pagesRead,
        pagesTotal,
        segmentsSearched);
  }

  @Override
  public String toString() {
    return "ScalarIndexResult[rows="
        + count()
        + ", fragments="
        + coveredFragments
        + ", pagesRead="
        + pagesRead
        + "/"
        + pagesTotal
        + "]";
  }
}
