package dev.lancelot.engine.internal.file.arrow;

import org.apache.arrow.vector.FieldVector;

/**
 * The rows of one top-level field within one batch: one {@link ColumnSink} per file column the
 * field is stored in (its leaves, in pre-order), and the assembled vector once all columns have
 * delivered the batch's rows.
 */
public interface FieldSink {
  int numColumns();

  /** The sink of the field's {@code i}-th column. */
  ColumnSink column(int i);

  /** Assembles and hands over the field's vector; the sink must not be used afterwards. */
  FieldVector finish();

  /** Releases everything when the batch is abandoned. */
  void abort();
}
