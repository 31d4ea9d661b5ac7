package dev.lancelot.engine.internal.file.write;

import dev.lancelot.engine.internal.file.repdef.CanonicalLevels;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.FieldVector;

/**
 * The leaf column of a nested field: canonical repetition/definition levels per level entry (see
 * {@link CanonicalLevels}), the row starts, and the items behind the visible entries. Items are
 * gathered in runs of consecutive indices of the leaf vector and copied in bulk.
 *
 * <p>Pages: rows are split so that long runs of rows without any item (at least {@value
 * #ITEMLESS_RUN_LEVELS} level entries of null or empty lists) become all-null pages of their own;
 * the other rows become mini-block or full-zip pages.
 */
final class NestedColumnBuffer extends ColumnBuffer {
  static final int ITEMLESS_RUN_LEVELS = 1024;

  private final CanonicalLevels scheme;
  private final ItemBuffer items;
  private final boolean withRep;
  private short[] rep = new short[1024];
  private short[] def = new short[1024];
  private int count;
  private int[] rowStart = new int[256];
  private int rows;
  private FieldVector runVector;
  private int runStart;
  private int runLength;
  private boolean[] runNulls = new boolean[256];

  NestedColumnBuffer(CanonicalLevels scheme, ItemBuffer items) {
    this.scheme = scheme;
    this.items = items;
    this.withRep = scheme.numLists() > 0;
  }

  CanonicalLevels scheme() {
    return scheme;
  }

  void startRow() {
    if (rows == rowStart.length) {
      rowStart = Arrays.copyOf(rowStart, 2 * rows);
    }
    rowStart[rows++] = count;
  }

  /** A level entry without an item (a null or empty list, or one hidden by a null ancestor). */
  void special(int r, int d) {
    add(r, d);
  }

  /** A level entry with an item: entry {@code index} of the leaf vector {@code leaf}. */
  void item(FieldVector leaf, int index, int r, int d) {
    add(r, d);
    if (runLength > 0 && (leaf != runVector || index != runStart + runLength)) {
      flushRun();
    }
    if (runLength == 0) {
      runVector = leaf;
      runStart = index;
    }
    if (runLength == runNulls.length) {
      runNulls = Arrays.copyOf(runNulls, 2 * runLength);
    }
    runNulls[runLength++] = d != 0;
  }

  private void add(int r, int d) {
    if (count == def.length) {
      def = Arrays.copyOf(def, 2 * count);
      if (withRep) {
        rep = Arrays.copyOf(rep, 2 * count);
      }
    }
    if (withRep) {
      rep[count] = (short) r;
    }
    def[count++] = (short) d;
  }

  /** Copies the pending run of items (call before the caller's vectors change). */
  void flushRun() {
    if (runLength == 0) {
      return;
    }
    for (int i = 0; i < runLength; i++) {
      if (runNulls[i]) {
        items.validity.appendNulls(1);
      } else {
        items.validity.appendValid(1);
      }
    }
    items.appendValues(runVector, runStart, runLength);
    runLength = 0;
    runVector = null;
  }

  @Override
  int rows() {
    return rows;
  }

  @Override
  long bytes() {
    return items.bytes() + 4L * count;
  }

  @Override
  List<EncodedPage> encode() {
    flushRun();
    try {
      int[] rowItems = new int[rows];
      for (int r = 0; r < rows; r++) {
        int end = r + 1 < rows ? rowStart[r + 1] : count;
        for (int i = rowStart[r]; i < end; i++) {
          if (scheme.visible(def[i])) {
            rowItems[r]++;
          }
        }
      }
      List<EncodedPage> pages = new ArrayList<>();
      int segment = 0;
      int segmentItem = 0;
      int item = 0;
      int r = 0;
      while (r < rows) {
        if (rowItems[r] > 0) {
          item += rowItems[r++];
          continue;
        }
        int runEnd = r;
        while (runEnd < rows && rowItems[runEnd] == 0) {
          runEnd++;
        }
        if (levelOf(runEnd) - levelOf(r) >= ITEMLESS_RUN_LEVELS) {
          if (r > segment) {
            pages.add(page(segment, r, segmentItem));
          }
          pages.add(page(r, runEnd, item));
          segment = runEnd;
          segmentItem = item;
        }
        r = runEnd;
      }
      if (segment < rows) {
        pages.add(page(segment, rows, segmentItem));
      }
      return pages;
    } finally {
      items.clear();
      count = 0;
      rows = 0;
    }
  }

  private int levelOf(int row) {
    return row < rows ? rowStart[row] : count;
  }

  private EncodedPage page(int fromRow, int toRow, int firstItem) {
    PageLevels levels =
        PageLevels.fromCanonical(
            scheme, rep, def, levelOf(fromRow), levelOf(toRow), toRow - fromRow);
    return PageEncoder.encode(items, firstItem, levels);
  }
}
