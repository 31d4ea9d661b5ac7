package dev.lancelot.engine.internal.index.scalar.btree;

import dev.lancelot.engine.internal.file.LanceFileWriter;
import dev.lancelot.engine.internal.file.WriterOptions;
import dev.lancelot.engine.io.FileIO;
import dev.lancelot.engine.schema.LanceSchema;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.roaringbitmap.RoaringBitmap;

/**
 * Writes a bitmap index segment as lance-core 7 does ({@link BitmapSegmentReader} reads it): one
 * file, {@value BitmapSegmentReader#LOOKUP_FILE}, a row per distinct value in index order (the NULL
 * key first, then ascending as a BTree orders values): {@code keys} (the column's type, nullable)
 * and {@code bitmaps} (binary, nullable: the rows holding the value, as Lance serializes a row
 * address tree map: a little-endian u32 count of fragments, then per fragment, ascending, its u32
 * id, the u32 length of a portable Roaring bitmap of offsets and that bitmap); schema metadata
 * {@code lance:index_stats = {"num_bitmaps":N}}. A label-list index (a bitmap over list elements)
 * also holds the rows whose list is NULL, serialized the same way, in a global buffer whose index
 * the metadata {@code lance:label_list_nulls} gives. Stateless.
 */
public final class BitmapWriter {
  static final String KEYS = "keys";
  static final String BITMAPS = "bitmaps";
  static final String STATS_KEY = "lance:index_stats";
  static final String LIST_NULLS_KEY = "lance:label_list_nulls";
  private static final int BATCH_KEYS = 4096;

  private BitmapWriter() {}

  /** Schema of the file for values of {@code valueType}. */
  static Schema schema(ArrowType valueType) {
    return new Schema(
        List.of(
            new Field(KEYS, FieldType.nullable(valueType), null),
            new Field(BITMAPS, FieldType.nullable(ArrowType.Binary.INSTANCE), null)));
  }

  /** Writes the file under {@code directory}; returns its size in bytes. */
  public static long write(
      FileIO io,
      String directory,
      ArrowType valueType,
      IndexColumnData data,
      BufferAllocator allocator,
      byte[] listNulls) {
    IndexColumnData.Sorted sorted = data.sorted();
    int[] order = sorted.order();
    long[] addresses = sorted.addresses();
    // runs of equal values: [start, end) in index order
    List<int[]> runs = new ArrayList<>();
    int n = order.length;
    int i = 0;
    while (i < n) {
      int j = i + 1;
      while (j < n && same(data, sorted, i, j)) {
        j++;
      }
      runs.add(new int[] {i, j});
      i = j;
    }
    Schema schema = schema(valueType);
    try (LanceFileWriter writer =
        LanceFileWriter.create(
            io.create(directory + "/" + BitmapSegmentReader.LOOKUP_FILE),
            LanceSchema.fromArrow(schema),
            WriterOptions.defaults())) {
      writer.putSchemaMetadata(STATS_KEY, "{\"num_bitmaps\":" + runs.size() + "}");
      for (int from = 0; from < runs.size(); from += BATCH_KEYS) {
        int to = Math.min(runs.size(), from + BATCH_KEYS);
        int count = to - from;
        try (ValueCodec.VectorBuilder keys =
                new ValueCodec.VectorBuilder(
                    schema.getFields().get(0), data.kind(), count, allocator);
            VarBinaryVector bitmaps = new VarBinaryVector(BITMAPS, allocator)) {
          bitmaps.allocateNew(count);
          for (int r = from; r < to; r++) {
            int[] run = runs.get(r);
            if (run[0] >= sorted.nullCount()) {
              int row = order[run[0]];
              if (data.keyed()) {
                keys.setKey(r - from, data.key(row));
              } else {
                keys.setBytes(r - from, data.bytes(row));
              }
            }
            bitmaps.setSafe(r - from, serialize(addresses, run[0], run[1]));
          }
          bitmaps.setValueCount(count);
          List<FieldVector> vectors = List.of(keys.finish(count), bitmaps);
          writer.write(new VectorSchemaRoot(schema.getFields(), vectors, count));
        }
      }
      if (listNulls != null) {
        int buffer = writer.addGlobalBuffer(listNulls);
        writer.putSchemaMetadata(LIST_NULLS_KEY, Integer.toString(buffer));
      }
      return writer.finish().fileSizeBytes();
    }
  }

  private static boolean same(IndexColumnData data, IndexColumnData.Sorted sorted, int a, int b) {
    int nulls = sorted.nullCount();
    if (a < nulls || b < nulls) {
      return a < nulls && b < nulls;
    }
    if (data.keyed()) {
      return sorted.keys()[a] == sorted.keys()[b];
    }
    return java.util.Arrays.equals(data.bytes(sorted.order()[a]), data.bytes(sorted.order()[b]));
  }

  /**
   * {@code addresses[from, to)} as Lance serializes a row address tree map (the addresses need not
   * be sorted).
   */
  static byte[] serialize(long[] addresses, int from, int to) {
    long[] sorted = java.util.Arrays.copyOfRange(addresses, from, to);
    java.util.Arrays.sort(sorted);
    List<Integer> fragments = new ArrayList<>();
    List<RoaringBitmap> maps = new ArrayList<>();
    for (long a : sorted) {
      int fragment = (int) (a >>> 32);
      if (fragments.isEmpty() || fragments.get(fragments.size() - 1) != fragment) {
        fragments.add(fragment);
        maps.add(new RoaringBitmap());
      }
      maps.get(maps.size() - 1).add((int) a);
    }
    int size = 4;
    for (RoaringBitmap m : maps) {
      size += 8 + m.serializedSizeInBytes();
    }
    ByteBuffer out = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    out.putInt(fragments.size());
    for (int f = 0; f < fragments.size(); f++) {
      RoaringBitmap m = maps.get(f);
      out.putInt(fragments.get(f));
      out.putInt(m.serializedSizeInBytes());
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(m.serializedSizeInBytes());
      try (DataOutputStream d = new DataOutputStream(bytes)) {
        m.serialize(d);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      out.put(bytes.toByteArray());
    }
    return out.array();
  }
}
