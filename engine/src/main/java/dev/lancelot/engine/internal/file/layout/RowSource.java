package dev.lancelot.engine.internal.file.layout;

import dev.lancelot.engine.internal.file.arrow.ColumnSink;

/** Loaded rows of one page range, emitted in order into sinks (decoding happens here). */
public interface RowSource {
  /** Rows not emitted yet. */
  int remaining();

  /** Decodes the next {@code n} rows into {@code sink}. */
  void emit(int n, ColumnSink sink);
}
