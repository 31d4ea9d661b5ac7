package dev.lancelot.engine.internal.file.arrow;

import dev.lancelot.engine.internal.file.codec.DecodeException;
import dev.lancelot.engine.internal.file.codec.FixedValues;
import dev.lancelot.engine.internal.file.codec.Values;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;

/** Booleans: 1-bit values copied bit by bit (bytewise when aligned). */
final class BoolSink implements ColumnSink {
  private final BitVector vector;
  private int size;

  BoolSink(BitVector vector, int capacity, boolean allocate) {
    this.vector = vector;
    if (allocate) {
      vector.allocateNew(Math.max(capacity, 1));
    }
  }

  @Override
  public void appendNulls(int n) {
    ensure(size + n);
    size += n;
  }

  private void ensure(int needed) {
    while (vector.getValueCapacity() < needed) {
      vector.reAlloc();
    }
  }

  @Override
  public void append(Values values, int from, int n, short[] defs, int defFrom) {
    if (!(values instanceof FixedValues fixed)
        || (fixed.bitsPerValue() != 1 && fixed.bitsPerValue() != 8)) {
      throw DecodeException.corrupt(
          "expected 1-bit values for a boolean column but decoded "
              + FixedWidthSink.describe(values));
    }
    ensure(size + n);
    if (fixed.bitsPerValue() == 8) {
      // one byte per value (constant pages): non-zero is true
      for (int i = 0; i < n; i++) {
        if (fixed.data().get(fixed.offset() + from + i) != 0) {
          ArrowBits.setBit(vector.getDataBuffer(), size + i);
        }
      }
    } else {
      ArrowBits.copyBits(
          fixed.data(), (long) fixed.offset() * 8 + from, vector.getDataBuffer(), size, n);
    }
    if (defs == null) {
      ArrowBits.setRange(vector.getValidityBuffer(), size, n);
    } else {
      ArrowBits.setFromDefs(vector.getValidityBuffer(), size, defs, defFrom, n);
    }
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
