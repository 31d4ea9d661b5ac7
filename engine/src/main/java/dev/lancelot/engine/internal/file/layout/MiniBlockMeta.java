package dev.lancelot.engine.internal.file.layout;

import dev.lancelot.engine.internal.file.codec.DecodeException;
import dev.lancelot.engine.internal.file.codec.Values;
import java.nio.ByteBuffer;

/**
 * The chunk table of a mini-block page, its repetition index (list pages) and its decoded
 * dictionary. Loaded once per page and shared.
 *
 * <p>Chunk table (page buffer 0): one u16 word per chunk (u32 with {@code has_large_chunk}):
 *
 * <pre>
 *   bits 0-3  log2(items in chunk); 0 for the last chunk, which holds the rest
 *   bits 4+   (chunk bytes / 8) - 1
 * </pre>
 *
 * Repetition index (last page buffer, list pages only): per chunk {@code depth + 1} u64 values, of
 * which the first two are read:
 *
 * <pre>
 *   [u64] ends     rows that end in this chunk (a row ending exactly at the chunk's end counts
 *                  here when the next chunk starts a new row)
 *   [u64] partial  number of levels after the last row start when the last row continues into
 *                  the next chunk, else 0
 *   [u64 x (depth - 1)] reserved for deeper indices
 * </pre>
 *
 * From it: a chunk "has a preamble" when the previous chunk's last row continues into it; the rows
 * starting in chunk c are {@code ends + (partial > 0) - preamble}, numbered from {@code
 * firstRow[c]}. A chunk holding only the middle of one long row starts no row.
 */
final class MiniBlockMeta {
  final long[] offsets;
  final int[] sizes;
  final int[] firstItem;
  final int[] items;
  final Values dictionary;

  /**
   * List pages only (else null): first row starting in each chunk, rows starting there, preamble
   * flag.
   */
  final long[] firstRow;

  final long[] starts;
  final boolean[] preamble;

  private MiniBlockMeta(
      long[] offsets,
      int[] sizes,
      int[] firstItem,
      int[] items,
      Values dictionary,
      long[] firstRow,
      long[] starts,
      boolean[] preamble) {
    this.offsets = offsets;
    this.sizes = sizes;
    this.firstItem = firstItem;
    this.items = items;
    this.dictionary = dictionary;
    this.firstRow = firstRow;
    this.starts = starts;
    this.preamble = preamble;
  }

  int numChunks() {
    return offsets.length;
  }

  /**
   * Parses the chunk table {@code words} of a page holding {@code totalItems} items in {@code
   * chunkBytes} bytes starting at file offset {@code chunksStart}.
   */
  static MiniBlockMeta parse(
      ByteBuffer words,
      boolean large,
      long totalItems,
      long chunksStart,
      long chunkBytes,
      Values dictionary,
      ByteBuffer repIndex,
      int repIndexDepth,
      long numRows) {
    int wordBytes = large ? 4 : 2;
    if (words.limit() % wordBytes != 0) {
      throw DecodeException.corrupt("mini-block chunk table of " + words.limit() + " bytes");
    }
    int n = words.limit() / wordBytes;
    long[] offsets = new long[n];
    int[] sizes = new int[n];
    int[] first = new int[n];
    int[] items = new int[n];
    long pos = chunksStart;
    long end = chunksStart + chunkBytes;
    long item = 0;
    for (int i = 0; i < n; i++) {
      long word =
          large
              ? Integer.toUnsignedLong(words.getInt(4 * i))
              : Short.toUnsignedInt(words.getShort(2 * i));
      int log = (int) (word & 0xF);
      long bytes = ((word >>> 4) + 1) * 8;
      long count = i < n - 1 ? 1L << log : totalItems - item;
      if (count <= 0 || item + count > totalItems || pos + bytes > end) {
        throw DecodeException.corrupt(
            "mini-block chunk table does not match the page ("
                + totalItems
                + " items, "
                + chunkBytes
                + " bytes of chunks)");
      }
      offsets[i] = pos;
      sizes[i] = (int) bytes;
      first[i] = (int) item;
      items[i] = (int) count;
      pos += bytes;
      item += count;
    }
    if (item != totalItems) {
      throw DecodeException.corrupt(
          "mini-block chunks hold " + item + " items, the page " + totalItems);
    }
    if (repIndex == null) {
      return new MiniBlockMeta(offsets, sizes, first, items, dictionary, null, null, null);
    }
    int stride = repIndexDepth + 1;
    if (repIndex.limit() != (long) n * stride * 8) {
      throw DecodeException.corrupt(
          "mini-block repetition index of "
              + repIndex.limit()
              + " bytes for "
              + n
              + " chunks of depth "
              + repIndexDepth);
    }
    long[] firstRow = new long[n];
    long[] starts = new long[n];
    boolean[] preamble = new boolean[n];
    boolean hasPreamble = false;
    long row = 0;
    for (int i = 0; i < n; i++) {
      long ends = repIndex.getLong(8 * i * stride);
      long partial = repIndex.getLong(8 * i * stride + 8);
      boolean trailer = partial != 0;
      long s = ends + (trailer ? 1 : 0) - (hasPreamble ? 1 : 0);
      if (ends < 0 || s < 0 || (i == n - 1 && trailer)) {
        throw DecodeException.corrupt(
            "mini-block repetition index entry "
                + i
                + " ("
                + ends
                + " rows, "
                + partial
                + " partial levels) is inconsistent");
      }
      firstRow[i] = row;
      starts[i] = s;
      preamble[i] = hasPreamble;
      hasPreamble = trailer;
      row += s;
    }
    if (row != numRows) {
      throw DecodeException.corrupt(
          "mini-block repetition index counts " + row + " rows, the page has " + numRows);
    }
    return new MiniBlockMeta(offsets, sizes, first, items, dictionary, firstRow, starts, preamble);
  }

  /** The chunk holding item {@code item} (pages without lists: items are rows). */
  int chunkOfItem(int item) {
    return lastAtMost(firstItem, item);
  }

  /** The chunk in which row {@code row} starts (list pages; {@code row} below the page's rows). */
  int chunkOfRowStart(long row) {
    int lo = 0;
    int hi = firstRow.length - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (firstRow[mid] <= row) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  /** The last chunk holding levels of rows below {@code endRow} (list pages). */
  int lastChunkBefore(long endRow, long numRows) {
    if (endRow >= numRows) {
      return firstRow.length - 1;
    }
    int c = chunkOfRowStart(endRow);
    // row endRow starting at the very beginning of chunk c leaves c unneeded
    return firstRow[c] == endRow && !preamble[c] ? c - 1 : c;
  }

  private static int lastAtMost(int[] a, int value) {
    int lo = 0;
    int hi = a.length - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (a[mid] <= value) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }
}
