package dev.lancelot.engine.internal.file.arrow;

import dev.lancelot.engine.internal.file.codec.Values;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.NullVector;

/** Arrow's Null type: only a row count. */
final class NullSink implements ColumnSink {
  private final NullVector vector;
  private int size;

  NullSink(NullVector vector) {
    this.vector = vector;
  }

  @Override
  public void appendNulls(int n) {
    size += n;
  }

  @Override
  public void append(Values values, int from, int n, short[] defs, int defFrom) {
    size += n;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public FieldVector finish() {
    vector.setValueCount(size);
    return vector;
  }

  @Override
  public void abort() {
    vector.close();
  }
}
