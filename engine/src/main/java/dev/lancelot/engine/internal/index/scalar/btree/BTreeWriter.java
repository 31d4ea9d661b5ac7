package dev.lancelot.engine.internal.index.scalar.btree;

import dev.lancelot.engine.internal.file.LanceFileWriter;
import dev.lancelot.engine.internal.file.WriteSummary;
import dev.lancelot.engine.internal.file.WriterOptions;
import dev.lancelot.engine.io.FileIO;
import dev.lancelot.engine.schema.LanceSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Writes a BTree segment's two files in Lance 7's layout ({@link BTreeFiles}) from gathered column
 * data: page_data.lance in index order, batch_size rows per page, then page_lookup.lance with one
 * entry per page. Stateless.
 */
public final class BTreeWriter {
  private BTreeWriter() {}

  /** Sizes of what was written, for the manifest's {@code files}. */
  public record Written(long rows, int pages, long nullCount, long lookupBytes, long pagesBytes) {}

  /** Writes both files under {@code directory} (which must not hold them yet). */
  public static Written write(
      FileIO io,
      String directory,
      ArrowType valueType,
      IndexColumnData data,
      int batchSize,
      BufferAllocator allocator) {
    if (batchSize < 1) {
      throw new IllegalArgumentException("batch size must be positive, got " + batchSize);
    }
    IndexColumnData.Sorted sorted = data.sorted();
    int[] order = sorted.order();
    int leadingNulls = sorted.nullCount(); // NULLs come first in index order
    long[] sortedAddresses = sorted.addresses();
    long[] sortedKeys = data.keyed() ? sorted.keys() : null;
    byte[] addressBytes =
        new byte[Math.multiplyExact(Math.min(batchSize, Math.max(1, order.length)), Long.BYTES)];
    Schema pagesSchema = BTreeFiles.pagesSchema(valueType);
    Field valueField = pagesSchema.getFields().get(0);
    List<int[]> bounds =
        new ArrayList<>(); // per page: first row, last row (positions in data), nulls
    WriteSummary pages;
    try (LanceFileWriter writer =
        LanceFileWriter.create(
            io.create(directory + "/" + BTreeFiles.PAGES_FILE),
            LanceSchema.fromArrow(pagesSchema),
            WriterOptions.defaults())) {
      for (int from = 0; from < order.length; from += batchSize) {
        int to = Math.min(order.length, from + batchSize);
        int count = to - from;
        int nulls = Math.max(0, Math.min(to, leadingNulls) - from);
        try (ValueCodec.VectorBuilder values =
                new ValueCodec.VectorBuilder(valueField, data.kind(), count, allocator);
            UInt8Vector ids = new UInt8Vector(BTreeFiles.IDS, allocator)) {
          ids.allocateNew(count);
          if (sortedKeys != null) {
            values.setKeys(nulls, sortedKeys, from + nulls, count - nulls);
          } else {
            for (int i = from + nulls; i < to; i++) {
              values.setBytes(i - from, data.bytes(order[i]));
            }
          }
          setAddresses(ids, sortedAddresses, from, count, addressBytes);
          ids.setValueCount(count);
          writer.write(new VectorSchemaRoot(List.of(values.finish(count), ids)));
        }
        bounds.add(new int[] {order[from], order[to - 1], nulls});
      }
      pages = writer.finish();
    }
    long lookupBytes = writeLookup(io, directory, valueType, data, bounds, batchSize, allocator);
    long nullCount = bounds.stream().mapToLong(b -> b[2]).sum();
    return new Written(order.length, bounds.size(), nullCount, lookupBytes, pages.fileSizeBytes());
  }

  private static long writeLookup(
      FileIO io,
      String directory,
      ArrowType valueType,
      IndexColumnData data,
      List<int[]> bounds,
      int batchSize,
      BufferAllocator allocator) {
    Schema schema = BTreeFiles.lookupSchema(valueType, batchSize);
    int n = bounds.size();
    try (ValueCodec.VectorBuilder min =
            new ValueCodec.VectorBuilder(schema.getFields().get(0), data.kind(), n, allocator);
        ValueCodec.VectorBuilder max =
            new ValueCodec.VectorBuilder(schema.getFields().get(1), data.kind(), n, allocator);
        UInt4Vector nullCounts = new UInt4Vector(BTreeFiles.NULL_COUNT, allocator);
        UInt4Vector pageIdx = new UInt4Vector(BTreeFiles.PAGE_IDX, allocator);
        LanceFileWriter writer =
            LanceFileWriter.create(
                io.create(directory + "/" + BTreeFiles.LOOKUP_FILE),
                LanceSchema.fromArrow(schema),
                WriterOptions.defaults())) {
      nullCounts.allocateNew(Math.max(1, n));
      pageIdx.allocateNew(Math.max(1, n));
      for (int p = 0; p < n; p++) {
        int[] b = bounds.get(p);
        if (!data.isNull(b[0])) {
          set(min, p, data, b[0]);
        }
        if (!data.isNull(b[1])) {
          set(max, p, data, b[1]);
        }
        nullCounts.set(p, b[2]);
        pageIdx.set(p, p);
      }
      nullCounts.setValueCount(n);
      pageIdx.setValueCount(n);
      for (Map.Entry<String, String> e : schema.getCustomMetadata().entrySet()) {
        writer.putSchemaMetadata(e.getKey(), e.getValue());
      }
      if (n > 0) {
        List<FieldVector> vectors = List.of(min.finish(n), max.finish(n), nullCounts, pageIdx);
        writer.write(new VectorSchemaRoot(schema.getFields(), vectors, n));
      }
      return writer.finish().fileSizeBytes();
    }
  }

  /**
   * Sets {@code ids[0, count)} to {@code addresses[from, from + count)}, in one copy through {@code
   * scratch} (at least {@code count * 8} bytes).
   */
  private static void setAddresses(
      UInt8Vector ids, long[] addresses, int from, int count, byte[] scratch) {
    if (count == 0) {
      return;
    }
    java.nio.ByteBuffer.wrap(scratch)
        .order(java.nio.ByteOrder.LITTLE_ENDIAN)
        .asLongBuffer()
        .put(addresses, from, count);
    ids.getDataBuffer().setBytes(0, scratch, 0, (long) count * Long.BYTES);
    ValueCodec.VectorBuilder.setValid(ids.getValidityBuffer(), 0, count);
  }

  private static void set(
      ValueCodec.VectorBuilder target, int slot, IndexColumnData data, int row) {
    if (data.keyed()) {
      target.setKey(slot, data.key(row));
    } else {
      target.setBytes(slot, data.bytes(row));
    }
  }
}
