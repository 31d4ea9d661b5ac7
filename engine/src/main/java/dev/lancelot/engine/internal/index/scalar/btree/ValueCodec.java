package dev.lancelot.engine.internal.index.scalar.btree;

import dev.lancelot.engine.internal.expr.eval.ByteRows;
import dev.lancelot.engine.internal.expr.eval.ColumnKind;
import dev.lancelot.engine.internal.expr.eval.Keys;
import java.util.Arrays;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Converts between Arrow vectors and the two comparable forms index values take: 64-bit keys whose
 * signed order is the filter order ({@link Keys}; bool as 0/1) for numbers, dates, timestamps and
 * bools, and byte arrays compared unsigned for strings and binaries. The filter kernels compare in
 * exactly these forms, so index answers equal scan answers.
 */
public final class ValueCodec {
  private ValueCodec() {}

  /** Whether a BTree index can hold values of this kind. */
  public static boolean supports(ColumnKind kind) {
    return usesKeys(kind) || usesBytes(kind);
  }

  /** Numbers, dates, timestamps and bools: compared as keys. */
  public static boolean usesKeys(ColumnKind kind) {
    return kind.hasKeys() || kind == ColumnKind.BOOL;
  }

  /** Strings and binaries (not the view types, which Lance does not write): compared byte-wise. */
  public static boolean usesBytes(ColumnKind kind) {
    return kind == ColumnKind.UTF8
        || kind == ColumnKind.LARGE_UTF8
        || kind == ColumnKind.BINARY
        || kind == ColumnKind.LARGE_BINARY
        || kind == ColumnKind.FIXED_BINARY;
  }

  /** Keys of the first {@code rows} values (null slots hold garbage). */
  public static long[] keys(FieldVector vector, ColumnKind kind, int rows) {
    long[] out = new long[rows];
    keysInto(vector, kind, rows, out, 0);
    return out;
  }

  /**
   * Writes the keys of the first {@code rows} values to {@code out[offset, offset + rows)} (null
   * slots get garbage).
   */
  public static void keysInto(
      FieldVector vector, ColumnKind kind, int rows, long[] out, int offset) {
    if (kind == ColumnKind.BOOL) {
      BitVector bits = (BitVector) vector;
      for (int i = 0; i < rows; i++) {
        out[offset + i] = bits.isNull(i) ? 0 : bits.get(i);
      }
      return;
    }
    Keys.decodeInto(vector, kind, rows, out, offset);
  }

  /** Bytes of the first {@code rows} values (null for null slots). */
  public static byte[][] bytes(FieldVector vector, ColumnKind kind, int rows) {
    ByteRows reader = ByteRows.of(vector, kind);
    byte[][] out = new byte[rows][];
    for (int i = 0; i < rows; i++) {
      if (!vector.isNull(i)) {
        int length = reader.load(i);
        out[i] = Arrays.copyOf(reader.bytes, length);
      }
    }
    return out;
  }

  /** Null flags of the first {@code rows} values. */
  public static boolean[] nulls(FieldVector vector, int rows) {
    boolean[] out = new boolean[rows];
    nullsInto(vector, rows, out, 0);
    return out;
  }

  /**
   * Sets {@code out[offset + i]} for each null among the first {@code rows} values and leaves the
   * other flags as they are (a vector without nulls writes nothing).
   */
  public static void nullsInto(FieldVector vector, int rows, boolean[] out, int offset) {
    if (vector.getNullCount() > 0) {
      for (int i = 0; i < rows; i++) {
        if (vector.isNull(i)) {
          out[offset + i] = true;
        }
      }
    }
  }

  /**
   * Builds a vector of {@code field}'s type, slot by slot: unset slots are null. Closing the
   * builder closes the vector. Not thread-safe.
   */
  public static final class VectorBuilder implements AutoCloseable {
    private final FieldVector vector;
    private final ColumnKind kind;
    private final int width;

    public VectorBuilder(Field field, ColumnKind kind, int capacity, BufferAllocator allocator) {
      this.vector = field.createVector(allocator);
      this.kind = kind;
      this.width = kind == ColumnKind.BOOL || !usesKeys(kind) ? 0 : byteWidth(kind);
      if (vector instanceof BaseFixedWidthVector fixed) {
        fixed.allocateNew(Math.max(1, capacity));
      } else {
        vector.allocateNew();
      }
    }

    public void setKey(int row, long key) {
      if (kind == ColumnKind.BOOL) {
        ((BitVector) vector).set(row, (int) key);
        return;
      }
      ArrowBuf data = vector.getDataBuffer();
      long raw = rawOf(kind, key);
      long at = (long) row * width;
      switch (width) {
        case 1 -> data.setByte(at, (byte) raw);
        case 2 -> data.setShort(at, (short) raw);
        case 4 -> data.setInt(at, (int) raw);
        default -> data.setLong(at, raw);
      }
      BitVectorHelper.setBit(vector.getValidityBuffer(), row);
    }

    /**
     * Sets slots {@code [slot, slot + count)} to the non-null values whose keys are {@code
     * keys[from, from + count)}, in one copy per buffer (no per-value bounds checks).
     */
    public void setKeys(int slot, long[] keys, int from, int count) {
      if (count <= 0) {
        return;
      }
      if (kind == ColumnKind.BOOL) {
        for (int i = 0; i < count; i++) {
          setKey(slot + i, keys[from + i]);
        }
        return;
      }
      java.nio.ByteBuffer raw =
          java.nio.ByteBuffer.allocate(count * width).order(java.nio.ByteOrder.LITTLE_ENDIAN);
      if (!transformsKeys(kind)) {
        // The key is the value: narrowed in a loop without calls (cheap even while it runs
        // interpreted), then one bulk put.
        switch (width) {
          case 1 -> {
            byte[] out = raw.array();
            for (int i = 0; i < count; i++) {
              out[i] = (byte) keys[from + i];
            }
          }
          case 2 -> {
            short[] out = new short[count];
            for (int i = 0; i < count; i++) {
              out[i] = (short) keys[from + i];
            }
            raw.asShortBuffer().put(out);
          }
          case 4 -> {
            int[] out = new int[count];
            for (int i = 0; i < count; i++) {
              out[i] = (int) keys[from + i];
            }
            raw.asIntBuffer().put(out);
          }
          default -> raw.asLongBuffer().put(keys, from, count);
        }
      } else {
        for (int i = 0; i < count; i++) {
          long v = rawOf(kind, keys[from + i]);
          switch (width) {
            case 1 -> raw.put((byte) v);
            case 2 -> raw.putShort((short) v);
            case 4 -> raw.putInt((int) v);
            default -> raw.putLong(v);
          }
        }
      }
      vector.getDataBuffer().setBytes((long) slot * width, raw.array(), 0, raw.capacity());
      setValid(vector.getValidityBuffer(), slot, count);
    }

    /** Marks slots {@code [slot, slot + count)} of a validity buffer valid, in one copy. */
    static void setValid(ArrowBuf validity, int slot, int count) {
      if (count <= 0) {
        return;
      }
      int end = slot + count;
      int firstByte = slot >>> 3;
      int lastByte = (end - 1) >>> 3;
      byte[] bits = new byte[lastByte - firstByte + 1];
      validity.getBytes(firstByte, bits, 0, bits.length);
      int bit = slot;
      for (; bit < end && (bit & 7) != 0; bit++) { // up to a byte boundary
        bits[(bit >>> 3) - firstByte] |= (byte) (1 << (bit & 7));
      }
      int wholeBytesEnd = end & ~7;
      if (bit < wholeBytesEnd) {
        Arrays.fill(bits, (bit >>> 3) - firstByte, (wholeBytesEnd >>> 3) - firstByte, (byte) 0xFF);
        bit = wholeBytesEnd;
      }
      for (; bit < end; bit++) { // the last partial byte
        bits[(bit >>> 3) - firstByte] |= (byte) (1 << (bit & 7));
      }
      validity.setBytes(firstByte, bits, 0, bits.length);
    }

    public void setBytes(int row, byte[] value) {
      if (vector instanceof BaseVariableWidthVector v) {
        v.setSafe(row, value);
      } else if (vector instanceof BaseLargeVariableWidthVector v) {
        v.setSafe(row, value);
      } else {
        ((FixedSizeBinaryVector) vector).setSafe(row, value);
      }
    }

    /** Sets the value count and returns the vector, which stays owned by this builder. */
    public FieldVector finish(int rows) {
      vector.setValueCount(rows);
      return vector;
    }

    @Override
    public void close() {
      vector.close();
    }
  }

  /** Whether {@link #rawOf} differs from the identity for this kind. */
  static boolean transformsKeys(ColumnKind kind) {
    return kind == ColumnKind.UINT64
        || kind == ColumnKind.FLOAT64
        || kind == ColumnKind.FLOAT32
        || kind == ColumnKind.FLOAT16;
  }

  /**
   * The raw little-endian value whose key is {@code key} (every key transform is an involution).
   */
  static long rawOf(ColumnKind kind, long key) {
    return switch (kind) {
      case UINT64 -> Keys.ofUnsigned64(key);
      case FLOAT64 -> key ^ ((key >> 63) & Long.MAX_VALUE);
      case FLOAT32 -> {
        int k = (int) key;
        yield k ^ ((k >> 31) & Integer.MAX_VALUE);
      }
      case FLOAT16 -> {
        int k = (int) key;
        yield k ^ ((k >> 15) & 0x7FFF);
      }
      default -> key;
    };
  }

  private static int byteWidth(ColumnKind kind) {
    return switch (kind) {
      case INT8, UINT8 -> 1;
      case INT16, UINT16, FLOAT16 -> 2;
      case INT32, UINT32, FLOAT32, DATE32 -> 4;
      default -> 8;
    };
  }
}
