package dev.lancelot.engine.internal.file.arrow;

import dev.lancelot.engine.internal.file.codec.DecodeException;
import java.nio.ByteOrder;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;

/**
 * Loads the own buffers (validity, offsets) of list and struct vectors whose children are filled
 * already. Bitmaps are LSB-first, 1 = valid.
 */
public final class NestedVectors {
  private NestedVectors() {}

  /** Sets a struct's validity and length ({@code count} entries, {@code nulls} of them null). */
  public static void loadStruct(
      StructVector s, byte[] bits, int count, int nulls, BufferAllocator allocator) {
    ArrowBuf validity = bitmap(allocator, bits, count);
    try {
      s.loadFieldBuffers(new ArrowFieldNode(count, nulls), List.of(validity));
    } finally {
      validity.getReferenceManager().release();
    }
    s.setValueCount(count);
  }

  /**
   * Sets a list's validity, offsets ({@code count + 1}, from 0) and length; works for {@link
   * ListVector} and {@link LargeListVector}.
   */
  public static void loadList(
      FieldVector v, long[] offsets, byte[] bits, int count, int nulls, BufferAllocator allocator) {
    loadList(
        v,
        bits,
        count,
        nulls,
        allocator,
        (off, large) -> {
          for (int i = 0; i <= count; i++) {
            if (large) {
              off.setLong(8L * i, offsets[i]);
            } else {
              if (offsets[i] > Integer.MAX_VALUE) {
                throw DecodeException.unsupported(
                    "more than 2^31 list items in one batch; use a smaller batch size");
              }
              off.setInt(4L * i, (int) offsets[i]);
            }
          }
        });
  }

  /**
   * {@link #loadList(FieldVector, long[], byte[], int, int, BufferAllocator)} for offsets that fit
   * an int.
   */
  public static void loadList(
      FieldVector v, int[] offsets, byte[] bits, int count, int nulls, BufferAllocator allocator) {
    loadList(
        v,
        bits,
        count,
        nulls,
        allocator,
        (off, large) -> {
          if (large) {
            for (int i = 0; i <= count; i++) {
              off.setLong(8L * i, offsets[i]);
            }
          } else {
            off.nioBuffer(0, (count + 1) * 4)
                .order(ByteOrder.LITTLE_ENDIAN)
                .asIntBuffer()
                .put(offsets, 0, count + 1);
          }
        });
  }

  /** Writes {@code count + 1} offsets into a buffer of 8-byte ({@code large}) or 4-byte entries. */
  private interface OffsetWriter {
    void write(ArrowBuf offsets, boolean large);
  }

  private static void loadList(
      FieldVector v,
      byte[] bits,
      int count,
      int nulls,
      BufferAllocator allocator,
      OffsetWriter writer) {
    boolean large = v instanceof LargeListVector;
    if (!large && !(v instanceof ListVector)) {
      throw new IllegalArgumentException("not a list vector: " + v.getClass().getSimpleName());
    }
    ArrowBuf validity = bitmap(allocator, bits, count);
    ArrowBuf off = allocator.buffer((long) (count + 1) * (large ? 8 : 4));
    try {
      writer.write(off, large);
      v.loadFieldBuffers(new ArrowFieldNode(count, nulls), List.of(validity, off));
    } finally {
      validity.getReferenceManager().release();
      off.getReferenceManager().release();
    }
    v.setValueCount(count);
  }

  /** The data (item) vector of a list or large list. */
  public static FieldVector items(FieldVector list) {
    if (list instanceof LargeListVector l) {
      return l.getDataVector();
    }
    return ((ListVector) list).getDataVector();
  }

  private static ArrowBuf bitmap(BufferAllocator allocator, byte[] bits, int count) {
    ArrowBuf buf = allocator.buffer(Math.max(1, (count + 7) / 8));
    buf.setZero(0, buf.capacity());
    buf.setBytes(0, bits, 0, Math.min(bits.length, (count + 7) / 8));
    return buf;
  }
}
