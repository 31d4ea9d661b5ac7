package dev.lancelot.engine.internal.file.arrow;

import dev.lancelot.engine.internal.file.codec.DecodeException;
import dev.lancelot.engine.internal.file.codec.Values;
import dev.lancelot.engine.internal.file.codec.VarValues;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;

/**
 * Strings and binary with 32-bit (utf8, binary) or 64-bit (large_utf8, large_binary) offsets. The
 * value bytes of a run are copied with one {@code setBytes}; offsets are rebased in a loop.
 */
final class VarWidthSink implements ColumnSink {
  private final FieldVector vector;
  private final boolean large;
  private int size;
  private long dataSize;

  VarWidthSink(FieldVector vector, int capacity) {
    this.vector = vector;
    this.large = vector instanceof BaseLargeVariableWidthVector;
    int rows = Math.max(capacity, 1);
    if (large) {
      ((BaseLargeVariableWidthVector) vector).allocateNew(Math.max(1024, rows * 16L), rows);
    } else {
      ((BaseVariableWidthVector) vector).allocateNew(Math.max(1024, rows * 16L), rows);
    }
  }

  private ArrowBuf offsets() {
    return vector.getOffsetBuffer();
  }

  private ArrowBuf data() {
    return vector.getDataBuffer();
  }

  private void putOffset(int row, long value) {
    if (large) {
      offsets().setLong((long) row * 8, value);
    } else {
      if (value > Integer.MAX_VALUE) {
        throw DecodeException.unsupported(
            "more than 2 GiB of string data in one batch; use a large_string"
                + " column or a smaller batch size");
      }
      offsets().setInt((long) row * 4, (int) value);
    }
  }

  private void ensureData(long needed) {
    while (data().capacity() < needed) {
      if (large) {
        ((BaseLargeVariableWidthVector) vector).reallocDataBuffer();
      } else {
        ((BaseVariableWidthVector) vector)
            .reallocDataBuffer(Math.max(needed, data().capacity() * 2));
      }
    }
  }

  /** Nested leaves may hold more items than the batch has rows: grow offsets and validity. */
  private void ensureRows(int needed) {
    while (vector.getValueCapacity() < needed) {
      if (large) {
        ((BaseLargeVariableWidthVector) vector).reallocValidityAndOffsetBuffers();
      } else {
        ((BaseVariableWidthVector) vector).reallocValidityAndOffsetBuffers();
      }
    }
  }

  @Override
  public void reserveBytes(long bytes) {
    if (bytes > 0) {
      ensureData(dataSize + bytes);
    }
  }

  @Override
  public void appendNulls(int n) {
    ensureRows(size + n);
    if (size == 0) {
      putOffset(0, 0);
    }
    for (int i = 1; i <= n; i++) {
      putOffset(size + i, dataSize);
    }
    size += n;
  }

  @Override
  public void append(Values values, int from, int n, short[] defs, int defFrom) {
    if (!(values instanceof VarValues var)) {
      throw DecodeException.corrupt(
          "expected variable-width values for a "
              + vector.getField().getType()
              + " column but decoded "
              + FixedWidthSink.describe(values));
    }
    long start = var.offset(from);
    long end = var.offset(from + n);
    long bytes = end - start;
    if (bytes < 0 || end > var.data().limit()) {
      throw DecodeException.corrupt(
          "value bytes ["
              + start
              + ", "
              + end
              + ") lie outside a buffer of "
              + var.data().limit()
              + " bytes");
    }
    ensureRows(size + n);
    ensureData(dataSize + bytes);
    if (bytes > 0) {
      data().setBytes(dataSize, var.data(), (int) start, (int) bytes);
    }
    long base = dataSize - start;
    if (size == 0) {
      putOffset(0, 0);
    }
    for (int i = 1; i <= n; i++) {
      putOffset(size + i, base + var.offset(from + i));
    }
    if (defs == null) {
      ArrowBits.setRange(vector.getValidityBuffer(), size, n);
    } else {
      ArrowBits.setFromDefs(vector.getValidityBuffer(), size, defs, defFrom, n);
    }
    dataSize += bytes;
    size += n;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public FieldVector finish() {
    if (size == 0) {
      putOffset(0, 0);
    }
    if (large) {
      ((BaseLargeVariableWidthVector) vector).setLastSet(size - 1);
    } else {
      ((BaseVariableWidthVector) vector).setLastSet(size - 1);
    }
    vector.setValueCount(size);
    return vector;
  }

  @Override
  public void abort() {
    vector.close();
  }
}
