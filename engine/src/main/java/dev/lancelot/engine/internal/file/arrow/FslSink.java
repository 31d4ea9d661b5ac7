package dev.lancelot.engine.internal.file.arrow;

import dev.lancelot.engine.internal.file.codec.DecodeException;
import dev.lancelot.engine.internal.file.codec.FslValues;
import dev.lancelot.engine.internal.file.codec.Values;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;

/**
 * Fixed-size lists (vectors): list validity from definition levels, items through a child sink,
 * item validity from the bitmap carried by {@link FslValues} when the items can be null.
 */
final class FslSink implements ColumnSink {
  private final FixedSizeListVector vector;
  private final int dimension;
  private final ColumnSink child;
  private int size;

  FslSink(FixedSizeListVector vector, int capacity, boolean allocate) {
    this.vector = vector;
    this.dimension = vector.getListSize();
    int rows = Math.max(capacity, 1);
    if (allocate) {
      vector.setInitialCapacity(rows);
      vector.allocateNew();
    }
    // allocateNew sized the child for rows * dimension items already
    this.child = Sinks.wrap(vector.getDataVector(), rows * dimension, false);
  }

  @Override
  public void appendNulls(int n) {
    ensure(size + n);
    child.appendNulls(n * dimension);
    size += n;
  }

  /** Nested leaves may hold more items than the batch has rows: grows validity and items. */
  private void ensure(int needed) {
    while (vector.getValidityBuffer().capacity() * 8 < needed) {
      vector.reAlloc();
    }
  }

  @Override
  public void append(Values values, int from, int n, short[] defs, int defFrom) {
    if (!(values instanceof FslValues fsl) || fsl.dimension() != dimension) {
      throw DecodeException.corrupt(
          "expected fixed-size lists of "
              + dimension
              + " items but decoded "
              + (values instanceof FslValues f
                  ? "lists of " + f.dimension()
                  : FixedWidthSink.describe(values)));
    }
    ensure(size + n);
    int childStart = child.size();
    child.append(fsl.items(), from * dimension, n * dimension, null, 0);
    if (fsl.validity() != null) {
      ArrowBuf childValidity = vector.getDataVector().getValidityBuffer();
      ArrowBits.overwriteBits(
          fsl.validity(),
          fsl.validityBitOffset() + (long) from * dimension,
          childValidity,
          childStart,
          n * dimension);
    }
    ArrowBuf validity = vector.getValidityBuffer();
    if (defs == null) {
      ArrowBits.setRange(validity, size, n);
    } else {
      ArrowBits.setFromDefs(validity, size, defs, defFrom, n);
    }
    size += n;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public FieldVector finish() {
    child.finish();
    vector.setValueCount(size);
    return vector;
  }

  @Override
  public void abort() {
    vector.close();
  }
}
