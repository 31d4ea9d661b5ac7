package dev.lancelot.engine.internal.file.arrow;

import org.apache.arrow.vector.FieldVector;

/**
 * Chooses the sinks of some leaves of a struct or list field whose values are not decoded the usual
 * way into their vector (blob fields: descriptors are read, the leaf gets the bytes they point to).
 */
@FunctionalInterface
public interface LeafSinks {
  /** Every leaf is read the usual way. */
  LeafSinks NONE = (column, leaf, capacity) -> null;

  /**
   * The sink filling {@code leaf}, the field's {@code column}-th column (pre-order), for about
   * {@code capacity} values; null to read it the usual way.
   */
  ColumnSink sink(int column, FieldVector leaf, int capacity);
}
