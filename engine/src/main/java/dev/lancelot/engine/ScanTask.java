package dev.lancelot.engine;

import java.io.Serializable;
import org.roaringbitmap.RoaringBitmap;

/**
 * A unit of scan work: rows {@code [startRow, endRow)} (physical offsets, deleted rows included) of
 * one fragment. Small and serializable so it can travel to a Spark executor.
 *
 * <p>When a scalar index answered the scan's filter, {@code selection} holds the offsets (within
 * the fragment, all in the task's range) that the index selected: only those rows are read, and the
 * filter is still applied to them. A null selection reads every row of the range.
 */
public record ScanTask(long fragmentId, long startRow, long endRow, RoaringBitmap selection)
    implements Serializable {
  public ScanTask {
    if (startRow < 0 || endRow < startRow) {
      throw new IllegalArgumentException("Invalid row range [" + startRow + ", " + endRow + ")");
    }
    if (selection != null) {
      selection = selection.clone();
      if (!selection.isEmpty()
          && (Integer.toUnsignedLong(selection.first()) < startRow
              || Integer.toUnsignedLong(selection.last()) >= endRow)) {
        throw new IllegalArgumentException(
            "Invalid selection of fragment "
                + fragmentId
                + ": offsets "
                + Integer.toUnsignedLong(selection.first())
                + " to "
                + Integer.toUnsignedLong(selection.last())
                + " are not all in the task's rows ["
                + startRow
                + ", "
                + endRow
                + ")");
      }
    }
  }

  /** Every row of {@code [startRow, endRow)}. */
  public ScanTask(long fragmentId, long startRow, long endRow) {
    this(fragmentId, startRow, endRow, null);
  }

  /** The offsets an index selected (a copy), or null when the task reads every row of its range. */
  @Override
  public RoaringBitmap selection() {
    return selection == null ? null : selection.clone();
  }

  /** Whether the task reads only the rows of an index selection. */
  public boolean hasSelection() {
    return selection != null;
  }

  public long physicalRows() {
    return endRow - startRow;
  }

  /** Rows the task reads (and decodes): the selection's size, or the range's. */
  public long rowsToRead() {
    return selection == null ? physicalRows() : selection.getLongCardinality();
  }
}
