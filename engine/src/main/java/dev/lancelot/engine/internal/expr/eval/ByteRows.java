package dev.lancelot.engine.internal.expr.eval;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseVariableWidthViewVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;

/**
 * Sequential access to the bytes of a string or binary column: {@link #load(int)} copies one row's
 * bytes into the reusable {@link #bytes} scratch array. Not thread-safe; one per batch.
 */
public abstract class ByteRows {
  /** Scratch holding the last loaded row in {@code [0, length)}; grows as needed. */
  public byte[] bytes = new byte[64];

  /** Copies row {@code row} into {@link #bytes} and returns its length. */
  public abstract int load(int row);

  final void ensure(int length) {
    if (bytes.length < length) {
      bytes = new byte[Math.max(length, bytes.length * 2)];
    }
  }

  public static ByteRows of(FieldVector vector, ColumnKind kind) {
    return switch (kind) {
      case UTF8, BINARY -> new Offsets32(vector.getOffsetBuffer(), vector.getDataBuffer());
      case LARGE_UTF8, LARGE_BINARY ->
          new Offsets64(vector.getOffsetBuffer(), vector.getDataBuffer());
      case FIXED_BINARY ->
          new Fixed(vector.getDataBuffer(), ((FixedSizeBinaryVector) vector).getByteWidth());
      case UTF8_VIEW, BINARY_VIEW -> new Views((BaseVariableWidthViewVector) vector);
      default -> throw new IllegalArgumentException("column kind " + kind + " has no bytes");
    };
  }

  private static final class Offsets32 extends ByteRows {
    private final ArrowBuf offsets;
    private final ArrowBuf data;

    Offsets32(ArrowBuf offsets, ArrowBuf data) {
      this.offsets = offsets;
      this.data = data;
    }

    @Override
    public int load(int row) {
      int start = offsets.getInt((long) row << 2);
      int length = offsets.getInt((long) (row + 1) << 2) - start;
      ensure(length);
      data.getBytes(start, bytes, 0, length);
      return length;
    }
  }

  private static final class Offsets64 extends ByteRows {
    private final ArrowBuf offsets;
    private final ArrowBuf data;

    Offsets64(ArrowBuf offsets, ArrowBuf data) {
      this.offsets = offsets;
      this.data = data;
    }

    @Override
    public int load(int row) {
      long start = offsets.getLong((long) row << 3);
      int length = Math.toIntExact(offsets.getLong((long) (row + 1) << 3) - start);
      ensure(length);
      data.getBytes(start, bytes, 0, length);
      return length;
    }
  }

  private static final class Fixed extends ByteRows {
    private final ArrowBuf data;
    private final int width;

    Fixed(ArrowBuf data, int width) {
      this.data = data;
      this.width = width;
      ensure(width);
    }

    @Override
    public int load(int row) {
      data.getBytes((long) row * width, bytes, 0, width);
      return width;
    }
  }

  /**
   * Arrow's view layout, 16 bytes per row: {@code [int32] length}, then either the bytes inline
   * (length &lt;= 12) or {@code [4 bytes] prefix, [int32] buffer index, [int32] offset}.
   */
  private static final class Views extends ByteRows {
    private final BaseVariableWidthViewVector vector;
    private final ArrowBuf views;
    private final java.util.List<ArrowBuf> buffers;

    Views(BaseVariableWidthViewVector vector) {
      this.vector = vector;
      this.views = vector.getDataBuffer();
      this.buffers = vector.getDataBuffers();
    }

    @Override
    public int load(int row) {
      if (vector.isNull(row)) {
        return 0; // a null row's view is undefined (any bytes), unlike a null row's offsets
      }
      long at = (long) row << 4;
      int length = views.getInt(at);
      ensure(length);
      if (length <= 12) {
        views.getBytes(at + 4, bytes, 0, length);
      } else {
        ArrowBuf buffer = buffers.get(views.getInt(at + 8));
        buffer.getBytes(views.getInt(at + 12), bytes, 0, length);
      }
      return length;
    }
  }
}
