package dev.lancelot.engine.internal.file.write;

import dev.lancelot.engine.internal.file.proto.Encodings21Protos.CompressiveEncoding;
import java.util.List;
import org.apache.arrow.vector.FieldVector;

/**
 * The items (leaf values) of one column waiting to become a page, copied out of the caller's
 * vectors in bulk, with their nullness. A flat column's items are its rows; a nested column's are
 * the values behind its visible level entries. Layout-independent: {@link PageEncoder} asks for
 * mini-block chunk buffers or full-zip values.
 */
abstract class ItemBuffer {
  /** Values under this many bytes are "narrow" and go to mini-block pages (as Lance 7 decides). */
  static final int NARROW_BYTES = 256;

  /** Null items. */
  final Validity validity = new Validity();

  /**
   * General compression of mini-block chunk values ({@link ChunkCompression}), or null; set for
   * fixed-width and variable-width values only, as Lance applies it.
   */
  dev.lancelot.engine.internal.file.proto.Encodings21Protos.CompressionScheme compression;

  /** Whether pages are full-zip whatever the values' width (blob v2 descriptors). */
  boolean fullZipOnly;

  /** Appends items {@code [from, from + n)} of {@code v} with the vector's own validity. */
  final void append(FieldVector v, int from, int n) {
    validity.append(v, from, n);
    appendValues(v, from, n);
  }

  /**
   * Appends the values of items {@code [from, from + n)} of {@code v}; their nullness must have
   * been recorded in {@link #validity} already (null items may keep no bytes).
   */
  abstract void appendValues(FieldVector v, int from, int n);

  final int items() {
    return validity.size();
  }

  /** Approximate encoded size of the buffered items. */
  abstract long bytes();

  /** Whether the items are narrow enough for mini-block pages. */
  abstract boolean narrow();

  // ---------------------------------------------------------------- mini-block

  /**
   * Decides how items {@code [first, first + n)} are encoded as one mini-block page, before their
   * chunks are asked for (the encoding may depend on the values, e.g. bit-packing).
   */
  void chooseMiniBlockEncoding(int first, int n) {}

  /**
   * The dictionary of the mini-block page {@link #chooseMiniBlockEncoding} decided on (a block of
   * {@link #dictionaryItems()} values the chunks index into), or null when the chunks hold values.
   */
  ByteSlice dictionary() {
    return null;
  }

  /** Values in {@link #dictionary()}. */
  int dictionaryItems() {
    return 0;
  }

  /** Buffers per chunk. */
  abstract int chunkBuffers();

  /**
   * Items of the chunk starting at item {@code start}: a power of two of at most {@code max}, or
   * exactly {@code remaining} (the page's last chunk) when that fits.
   */
  abstract int chunkItems(int start, int remaining, int max);

  /** The value buffers of chunk {@code [start, start + count)}. */
  abstract List<ByteSlice> chunk(int start, int count);

  /** The encoding of chunk values (and of full-zip values). */
  abstract CompressiveEncoding encoding();

  // ---------------------------------------------------------------- full-zip

  /** Decides how items {@code [first, first + n)} are encoded as one full-zip page. */
  void chooseFullZipEncoding(int first, int n) {}

  /** Bits of each full-zip value (fixed width), or 0 for variable-width values. */
  abstract int zippedBits();

  /** Width of a full-zip length prefix (variable width only). */
  int lengthBytes() {
    throw new IllegalStateException("fixed-width items have no length prefix");
  }

  /**
   * Items {@code [first, first + n)} as full-zip stores them back to back, when the buffered bytes
   * already are exactly that (no copy); null otherwise.
   */
  ByteSlice zippedRange(int first, int n) {
    return null;
  }

  /** Appends item {@code i} as full-zip stores it (variable width: nothing for null items). */
  abstract void zip(int i, GrowableBytes out);

  /** Forgets all items. */
  void clear() {
    validity.clear();
  }

  /** A power of two of at most {@code max} (at least 1). */
  static int floorPow2(int max) {
    return Integer.highestOneBit(Math.max(1, max));
  }
}
