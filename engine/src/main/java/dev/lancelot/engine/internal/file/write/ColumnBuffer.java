package dev.lancelot.engine.internal.file.write;

import java.util.List;

/**
 * The rows of one file column waiting to become pages; {@link #encode()} picks the layouts and
 * resets. Flat columns append row slices ({@link FlatColumnBuffer}); leaves of nested fields
 * receive shredded levels and items ({@link NestedColumnBuffer}).
 */
abstract class ColumnBuffer {
  abstract int rows();

  /** Approximate encoded size of the buffered rows. */
  abstract long bytes();

  /** Encodes the buffered rows as one or more pages and clears the buffer. */
  abstract List<EncodedPage> encode();
}
