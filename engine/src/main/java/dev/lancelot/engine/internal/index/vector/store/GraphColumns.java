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
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;

/**
 * Reads the HNSW graph columns of {@code index.idx} ({@code __vector_id u32}, {@code __neighbors
 * list<u32>}, {@code _distance list<f32>}) for a row range into {@link HnswGraphCodec.Rows}: CSR
 * arrays on the heap. The two list columns must have the same list lengths row by row.
 */
final class GraphColumns {
  private GraphColumns() {}

  static HnswGraphCodec.Rows read(
      LanceFileReader reader, long start, long end, BufferAllocator allocator) {
    int rows = Math.toIntExact(end - start);
    int[] ids =
        ColumnArrays.uint32(reader, IndexFileLayout.VECTOR_ID_COLUMN, start, end, allocator);
    int[] offsets = new int[rows + 1];
    IntList neighbors = new IntList();
    FloatList distances = new FloatList();
    readList(
        reader,
        IndexFileLayout.NEIGHBORS_COLUMN,
        start,
        end,
        allocator,
        offsets,
        (items, from, count) -> {
          if (!(items instanceof UInt4Vector)) {
            throw new CorruptFileException(
                reader.location(),
                "column " + IndexFileLayout.NEIGHBORS_COLUMN + " is not a list of uint32");
          }
          int[] tmp = new int[count];
          items
              .getDataBuffer()
              .nioBuffer(4L * from, 4 * count)
              .order(ByteOrder.LITTLE_ENDIAN)
              .asIntBuffer()
              .get(tmp);
          neighbors.addAll(tmp);
        });
    int[] distanceOffsets = new int[rows + 1];
    readList(
        reader,
        IndexFileLayout.DISTANCE_COLUMN,
        start,
        end,
        allocator,
        distanceOffsets,
        (items, from, count) -> {
          if (!(items instanceof Float4Vector)) {
            throw new CorruptFileException(
                reader.location(),
                "column " + IndexFileLayout.DISTANCE_COLUMN + " is not a list of float32");
          }
          float[] tmp = new float[count];
          items
              .getDataBuffer()
              .nioBuffer(4L * from, 4 * count)
              .order(ByteOrder.LITTLE_ENDIAN)
              .asFloatBuffer()
              .get(tmp);
          distances.addAll(tmp);
        });
    if (!java.util.Arrays.equals(offsets, distanceOffsets)) {
      throw new CorruptFileException(
          reader.location(),
          "HNSW neighbour and distance lists differ in length in rows ["
              + start
              + ", "
              + end
              + ")");
    }
    return new HnswGraphCodec.Rows(ids, offsets, neighbors.toArray(), distances.toArray());
  }

  private interface ItemSink {
    void take(FieldVector items, int from, int count);
  }

  private static void readList(
      LanceFileReader reader,
      String column,
      long start,
      long end,
      BufferAllocator allocator,
      int[] offsetsOut,
      ItemSink sink) {
    FileProjection p = FileProjection.ofNames(reader.schema(), List.of(column));
    int batch = (int) Math.max(1, Math.min(end - start, 1 << 16));
    int row = 0;
    int total = 0;
    try (LanceBatchReader batches = reader.read(p, start, end, batch, allocator)) {
      while (batches.loadNextBatch()) {
        VectorSchemaRoot root = batches.getVectorSchemaRoot();
        FieldVector v = root.getVector(0);
        if (!(v instanceof ListVector list)) {
          throw new CorruptFileException(
              reader.location(), "column " + column + " is not a list column");
        }
        int n = root.getRowCount();
        int first = list.getOffsetBuffer().getInt(0);
        for (int i = 0; i < n; i++) {
          if (list.isNull(i)) {
            throw new CorruptFileException(
                reader.location(),
                "column " + column + " has a null list at row " + (start + row + i));
          }
          offsetsOut[row + i] = total + list.getOffsetBuffer().getInt(4L * i) - first;
        }
        int last = list.getOffsetBuffer().getInt(4L * n);
        FieldVector items = list.getDataVector();
        if (items.getNullCount() > 0) {
          throw new CorruptFileException(
              reader.location(), "column " + column + " has null list items");
        }
        sink.take(items, first, last - first);
        total += last - first;
        row += n;
      }
    } catch (IOException e) {
      throw new CorruptFileException(
          reader.location(), "reading column " + column + " failed: " + e.getMessage(), e);
    }
    offsetsOut[row] = total;
  }

  private static final class IntList {
    private int[] a = new int[1024];
    private int n;

    void addAll(int[] v) {
      if (n + v.length > a.length) {
        a = java.util.Arrays.copyOf(a, Math.max(a.length * 2, n + v.length));
      }
      System.arraycopy(v, 0, a, n, v.length);
      n += v.length;
    }

    int[] toArray() {
      return java.util.Arrays.copyOf(a, n);
    }
  }

  private static final class FloatList {
    private float[] a = new float[1024];
    private int n;

    void addAll(float[] v) {
      if (n + v.length > a.length) {
        a = java.util.Arrays.copyOf(a, Math.max(a.length * 2, n + v.length));
      }
      System.arraycopy(v, 0, a, n, v.length);
      n += v.length;
    }

    float[] toArray() {
      return java.util.Arrays.copyOf(a, n);
    }
  }
}
