package dev.lancelot.engine.internal.file.arrow;

import dev.lancelot.engine.internal.file.codec.DecodeException;
import dev.lancelot.engine.internal.file.codec.Values;
import dev.lancelot.engine.internal.file.repdef.CanonicalLevels;
import org.apache.arrow.vector.FieldVector;

/**
 * Appends decoded values to one Arrow vector of a batch. Rows arrive in order; the vector is
 * allocated for the batch's row count up front (variable-width data grows as needed).
 * Implementations copy in bulk: one {@code setBytes} per run of values plus a validity pass.
 */
public interface ColumnSink {
  /** Appends {@code n} null rows. */
  void appendNulls(int n);

  /**
   * Appends values {@code [from, from + n)} of {@code values}. Row {@code i} of them is null when
   * {@code defs != null && defs[defFrom + i] != 0} (the definition level of a non-nested leaf).
   */
  void append(Values values, int from, int n, short[] defs, int defFrom);

  /**
   * Whether this sink is the leaf of a nested field (a list or struct): pages then send, for every
   * span of rows, the span's canonical levels with {@link #appendLevels} and the values of its
   * visible items with {@link #append}, whose {@code defs} are the items' canonical levels.
   */
  default boolean nested() {
    return false;
  }

  /**
   * Appends canonical repetition/definition levels {@code [from, from + n)} of a nested leaf in the
   * page's {@code scheme}, which must be the column's; null arrays mean zeros.
   */
  default void appendLevels(CanonicalLevels scheme, short[] rep, short[] def, int from, int n) {
    throw DecodeException.corrupt(
        "a page with repetition/definition layers for a non-nested column");
  }

  /**
   * A hint that about {@code items} more values will be appended: sinks that grow may make room at
   * once. Does nothing by default.
   */
  default void reserve(int items) {}

  /**
   * A hint for the leaf of a nested field that about {@code rows} more rows, {@code levels} more
   * level entries and {@code items} more values will be appended. Does nothing by default.
   */
  default void reserveNested(int rows, int levels, int items) {}

  /**
   * Offers the levels of a span of a list page by their row starts instead of by {@link
   * #appendLevels}: the rows starting at level entries {@code rowStarts[firstStart..endStart)}
   * (entries at the maximum repetition level), {@code rowItems} the items before each of those
   * entries, and the span's items {@code [fromItem, toItem)}; {@code def} holds the canonical
   * definition levels (null for zeros). Returns false, having done nothing, when the sink needs the
   * levels themselves; the items are appended with {@link #append} either way.
   */
  default boolean appendListRows(
      CanonicalLevels scheme,
      short[] def,
      int[] rowStarts,
      int[] rowItems,
      int firstStart,
      int endStart,
      int fromItem,
      int toItem) {
    return false;
  }

  /**
   * A hint that about {@code bytes} more variable-width value bytes will follow, so the data buffer
   * can grow once instead of doubling (and copying) repeatedly. Optional.
   */
  default void reserveBytes(long bytes) {}

  /** Rows appended so far. */
  int size();

  /** Sets the value count and hands the vector over; the sink must not be used afterwards. */
  FieldVector finish();

  /** Releases the vector when the batch is abandoned (e.g. after a decoding error). */
  void abort();
}
