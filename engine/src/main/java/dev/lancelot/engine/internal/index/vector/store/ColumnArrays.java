package dev.lancelot.engine.internal.index.vector.store;

import dev.lancelot.engine.internal.file.FileProjection;
import dev.lancelot.engine.internal.file.LanceBatchReader;
import dev.lancelot.engine.internal.file.LanceFileReader;
import dev.lancelot.engine.internal.format.CorruptFileException;
import java.io.IOException;
import java.nio.ByteOrder;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;

/**
 * Reads one column's rows {@code [start, end)} of an index file into a flat Java array and frees
 * the Arrow memory at once, so partitions live on the heap as {@code long[]}, {@code byte[]} and
 * {@code float[]} (docs/architecture.md §7.10). Nulls in index columns mean a corrupt file.
 */
final class ColumnArrays {
  private ColumnArrays() {}

  interface Sink {
    /** Copies {@code rows} rows of {@code vector} to the output at row {@code at}. */
    void take(FieldVector vector, int rows, int at);
  }

  static void read(
      LanceFileReader reader,
      String column,
      long start,
      long end,
      BufferAllocator allocator,
      Sink sink) {
    FileProjection p = FileProjection.ofNames(reader.schema(), List.of(column));
    int batch = (int) Math.max(1, Math.min(end - start, 1 << 16));
    int at = 0;
    try (LanceBatchReader batches = reader.read(p, start, end, batch, allocator)) {
      while (batches.loadNextBatch()) {
        VectorSchemaRoot root = batches.getVectorSchemaRoot();
        FieldVector v = root.getVector(0);
        if (v.getNullCount() > 0) {
          throw new CorruptFileException(
              reader.location(),
              "its index column "
                  + column
                  + " has null values in rows ["
                  + start
                  + ", "
                  + end
                  + ")");
        }
        sink.take(v, root.getRowCount(), at);
        at += root.getRowCount();
      }
    } catch (IOException e) {
      throw new CorruptFileException(
          reader.location(), "reading index column " + column + " failed: " + e.getMessage(), e);
    }
    if (at != end - start) {
      throw new CorruptFileException(
          reader.location(),
          "index column " + column + " returned " + at + " rows for [" + start + ", " + end + ")");
    }
  }

  static long[] uint64(
      LanceFileReader reader, String column, long start, long end, BufferAllocator allocator) {
    long[] out = new long[Math.toIntExact(end - start)];
    read(
        reader,
        column,
        start,
        end,
        allocator,
        (v, rows, at) -> {
          expect(reader, column, v instanceof UInt8Vector, "uint64");
          v.getDataBuffer()
              .nioBuffer(0, rows * 8)
              .order(ByteOrder.LITTLE_ENDIAN)
              .asLongBuffer()
              .get(out, at, rows);
        });
    return out;
  }

  static int[] uint32(
      LanceFileReader reader, String column, long start, long end, BufferAllocator allocator) {
    int[] out = new int[Math.toIntExact(end - start)];
    read(
        reader,
        column,
        start,
        end,
        allocator,
        (v, rows, at) -> {
          expect(reader, column, v instanceof UInt4Vector, "uint32");
          v.getDataBuffer()
              .nioBuffer(0, rows * 4)
              .order(ByteOrder.LITTLE_ENDIAN)
              .asIntBuffer()
              .get(out, at, rows);
        });
    return out;
  }

  /** A {@code float32} column. */
  static float[] float32(
      LanceFileReader reader, String column, long start, long end, BufferAllocator allocator) {
    float[] out = new float[Math.toIntExact(end - start)];
    read(
        reader,
        column,
        start,
        end,
        allocator,
        (v, rows, at) -> {
          expect(reader, column, v instanceof Float4Vector, "float32");
          v.getDataBuffer()
              .nioBuffer(0, rows * 4)
              .order(ByteOrder.LITTLE_ENDIAN)
              .asFloatBuffer()
              .get(out, at, rows);
        });
    return out;
  }

  /** A {@code fixed_size_list<uint8, width>} column, values back to back. */
  static byte[] uint8List(
      LanceFileReader reader,
      String column,
      int width,
      long start,
      long end,
      BufferAllocator allocator) {
    byte[] out = new byte[Math.toIntExact((end - start) * width)];
    read(
        reader,
        column,
        start,
        end,
        allocator,
        (v, rows, at) -> {
          FieldVector items = fixedSizeItems(reader, column, v, width);
          expect(reader, column, items instanceof UInt1Vector, "fixed_size_list<uint8>");
          items.getDataBuffer().nioBuffer(0, rows * width).get(out, at * width, rows * width);
        });
    return out;
  }

  /** A {@code fixed_size_list<float32, width>} column, values back to back. */
  static float[] float32List(
      LanceFileReader reader,
      String column,
      int width,
      long start,
      long end,
      BufferAllocator allocator) {
    float[] out = new float[Math.toIntExact((end - start) * width)];
    read(
        reader,
        column,
        start,
        end,
        allocator,
        (v, rows, at) -> {
          FieldVector items = fixedSizeItems(reader, column, v, width);
          expect(reader, column, items instanceof Float4Vector, "fixed_size_list<float32>");
          items
              .getDataBuffer()
              .nioBuffer(0, rows * width * 4)
              .order(ByteOrder.LITTLE_ENDIAN)
              .asFloatBuffer()
              .get(out, at * width, rows * width);
        });
    return out;
  }

  private static FieldVector fixedSizeItems(
      LanceFileReader reader, String column, FieldVector v, int width) {
    expect(reader, column, v instanceof FixedSizeListVector, "fixed_size_list");
    FixedSizeListVector fsl = (FixedSizeListVector) v;
    if (fsl.getListSize() != width) {
      throw new CorruptFileException(
          reader.location(),
          "index column "
              + column
              + " has lists of "
              + fsl.getListSize()
              + " values, expected "
              + width);
    }
    FieldVector items = fsl.getDataVector();
    if (items.getNullCount() > 0) {
      throw new CorruptFileException(
          reader.location(), "index column " + column + " has null list items");
    }
    return items;
  }

  private static void expect(LanceFileReader reader, String column, boolean ok, String type) {
    if (!ok) {
      throw new CorruptFileException(
          reader.location(), "index column " + column + " is not of type " + type);
    }
  }
}
