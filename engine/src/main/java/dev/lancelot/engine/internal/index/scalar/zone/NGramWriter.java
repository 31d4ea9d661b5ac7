package dev.lancelot.engine.internal.index.scalar.zone;

import dev.lancelot.engine.internal.file.LanceFileWriter;
import dev.lancelot.engine.internal.file.WriterOptions;
import dev.lancelot.engine.internal.index.scalar.btree.IndexColumnData;
import dev.lancelot.engine.io.FileIO;
import dev.lancelot.engine.schema.LanceSchema;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.roaringbitmap.RoaringBitmap;

/**
 * Writes an n-gram segment as lance-core 7 does ({@link NGramSegmentReader} reads it): one file,
 * {@value NGramSegmentReader#FILE}, a row per trigram token in ascending order, {@code tokens}
 * (uint32, nullable) and {@code posting_list} (binary, not nullable, stored uncompressed): the rows
 * whose text holds the trigram ({@link NGramText}), serialized as a 64-bit Roaring treemap (a
 * little-endian u64 count of maps, then per map, ascending, its u32 high half and a portable
 * Roaring bitmap of low halves). Rows whose text is NULL are the posting list of token 0, which no
 * trigram has. No schema metadata. Stateless.
 */
public final class NGramWriter {
  static final String TOKENS = "tokens";
  static final String POSTINGS = "posting_list";
  private static final int BATCH_TOKENS = 4096;

  private NGramWriter() {}

  static Schema schema() {
    return new Schema(
        List.of(
            new Field(TOKENS, FieldType.nullable(new ArrowType.Int(32, false)), null),
            new Field(
                POSTINGS,
                new FieldType(
                    false,
                    ArrowType.Binary.INSTANCE,
                    null,
                    Map.of("lance-encoding:compression", "none")),
                null)));
  }

  /** The posting lists of {@code data}'s texts (UTF-8 bytes), by token. */
  static java.util.SortedMap<Integer, java.util.SortedMap<Integer, RoaringBitmap>> postings(
      IndexColumnData data) {
    Map<Integer, java.util.SortedMap<Integer, RoaringBitmap>> lists = new HashMap<>();
    for (int r = 0; r < data.size(); r++) {
      long address = data.address(r);
      int high = (int) (address >>> 32);
      int low = (int) address;
      if (data.isNull(r)) {
        add(lists, 0, high, low);
      } else {
        NGramText.tokens(data.bytes(r), token -> add(lists, token, high, low));
      }
    }
    return new TreeMap<>(lists);
  }

  private static void add(
      Map<Integer, java.util.SortedMap<Integer, RoaringBitmap>> lists,
      int token,
      int high,
      int low) {
    lists
        .computeIfAbsent(token, t -> new TreeMap<>(Integer::compareUnsigned))
        .computeIfAbsent(high, h -> new RoaringBitmap())
        .add(low);
  }

  /** Writes the file under {@code directory}; returns its size in bytes. */
  public static long write(
      FileIO io, String directory, IndexColumnData data, BufferAllocator allocator) {
    java.util.SortedMap<Integer, java.util.SortedMap<Integer, RoaringBitmap>> lists =
        postings(data);
    Schema schema = schema();
    try (LanceFileWriter writer =
        LanceFileWriter.create(
            io.create(directory + "/" + NGramSegmentReader.FILE),
            LanceSchema.fromArrow(schema),
            WriterOptions.defaults())) {
      var entries = lists.entrySet().iterator();
      int remaining = lists.size();
      while (remaining > 0) {
        int count = Math.min(BATCH_TOKENS, remaining);
        try (UInt4Vector tokens = new UInt4Vector(schema.getFields().get(0), allocator);
            VarBinaryVector postings = new VarBinaryVector(schema.getFields().get(1), allocator)) {
          tokens.allocateNew(count);
          postings.allocateNew(count);
          for (int i = 0; i < count; i++) {
            var e = entries.next();
            tokens.set(i, e.getKey());
            postings.setSafe(i, serialize(e.getValue()));
          }
          tokens.setValueCount(count);
          postings.setValueCount(count);
          List<FieldVector> vectors = List.of(tokens, postings);
          writer.write(new VectorSchemaRoot(schema.getFields(), vectors, count));
        }
        remaining -= count;
      }
      return writer.finish().fileSizeBytes();
    }
  }

  /** A 64-bit Roaring treemap in its portable serialization. */
  static byte[] serialize(java.util.SortedMap<Integer, RoaringBitmap> maps) {
    int size = 8;
    for (RoaringBitmap m : maps.values()) {
      size += 4 + m.serializedSizeInBytes();
    }
    ByteBuffer out = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    out.putLong(maps.size());
    for (var e : maps.entrySet()) {
      out.putInt(e.getKey());
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(e.getValue().serializedSizeInBytes());
      try (DataOutputStream d = new DataOutputStream(bytes)) {
        e.getValue().serialize(d);
      } catch (IOException ex) {
        throw new UncheckedIOException(ex);
      }
      out.put(bytes.toByteArray());
    }
    return out.array();
  }
}
