package dev.lancelot.engine.internal.file.arrow;

import dev.lancelot.engine.internal.file.codec.DecodeException;
import dev.lancelot.engine.internal.file.codec.FixedValues;
import dev.lancelot.engine.internal.file.codec.Values;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;

/** Fixed-width primitives (integers, floats, dates, times, decimals, fixed-size binary). */
final class FixedWidthSink implements ColumnSink {
  private final BaseFixedWidthVector vector;
  private final int width;
  private int size;

  FixedWidthSink(BaseFixedWidthVector vector, int capacity, boolean allocate) {
    this.vector = vector;
    this.width = vector.getTypeWidth();
    if (allocate) {
      vector.allocateNew(Math.max(capacity, 1));
    }
  }

  @Override
  public void appendNulls(int n) {
    ensure(size + n);
    size += n;
  }

  @Override
  public void reserve(int items) {
    long needed = (long) size + items;
    if (needed > vector.getValueCapacity() && needed <= Integer.MAX_VALUE) {
      if (size == 0) {
        vector.allocateNew((int) needed); // nothing to keep: allocate once instead of doubling
      } else {
        ensure((int) needed);
      }
    }
  }

  /** Nested leaves may hold more items than the batch has rows: grow by doubling. */
  private void ensure(int needed) {
    while (vector.getValueCapacity() < needed) {
      vector.reAlloc();
    }
  }

  @Override
  public void append(Values values, int from, int n, short[] defs, int defFrom) {
    if (!(values instanceof FixedValues fixed) || fixed.bitsPerValue() != width * 8) {
      throw DecodeException.corrupt(
          "expected "
              + (width * 8)
              + "-bit values for a "
              + vector.getField().getType()
              + " column but decoded "
              + describe(values));
    }
    ensure(size + n);
    vector
        .getDataBuffer()
        .setBytes((long) size * width, fixed.data(), fixed.offset() + from * width, n * width);
    if (defs == null) {
      ArrowBits.setRange(vector.getValidityBuffer(), size, n);
    } else {
      ArrowBits.setFromDefs(vector.getValidityBuffer(), size, defs, defFrom, n);
    }
    size += n;
  }

  static String describe(Values v) {
    if (v instanceof FixedValues f) {
      return f.bitsPerValue() + "-bit values";
    }
    return v.getClass().getSimpleName();
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
