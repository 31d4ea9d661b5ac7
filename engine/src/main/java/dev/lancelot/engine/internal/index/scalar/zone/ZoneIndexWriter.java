package dev.lancelot.engine.internal.index.scalar.zone;

import dev.lancelot.engine.internal.expr.eval.ColumnKind;
import dev.lancelot.engine.internal.file.LanceFileWriter;
import dev.lancelot.engine.internal.file.WriterOptions;
import dev.lancelot.engine.internal.index.scalar.btree.IndexColumnData;
import dev.lancelot.engine.internal.index.scalar.btree.ValueCodec;
import dev.lancelot.engine.io.FileIO;
import dev.lancelot.engine.schema.LanceSchema;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Writes zone-map and bloom-filter segments as lance-core 7 does ({@link ZoneMapSegmentReader},
 * {@link BloomFilterSegmentReader} read them). The gathered rows (deleted ones excluded, in scan
 * order: fragments in order, offsets ascending) are cut into zones of at most {@code capacity} rows
 * that never span two fragments; a zone's {@code zone_start} is the offset of its first row and
 * {@code zone_length} the span to its last ({@code last - first + 1}), so rows deleted before the
 * build lie inside it. Stateless.
 */
public final class ZoneIndexWriter {
  private static final ArrowType UINT32 = new ArrowType.Int(32, false);
  private static final ArrowType UINT64 = new ArrowType.Int(64, false);
  private static final int MIN_FILTER_BYTES = 32;
  private static final int MAX_FILTER_BYTES = 128 * 1024 * 1024;
  private static final int[] SALT = {
    0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31
  };

  private ZoneIndexWriter() {}

  /** A zone: rows {@code [from, to)} of the gathered data, in fragment {@code fragment}. */
  record Zone(int from, int to, long fragment, long start, long length) {}

  static List<Zone> zones(IndexColumnData data, long capacity) {
    List<Zone> out = new ArrayList<>();
    int n = data.size();
    int from = 0;
    while (from < n) {
      long fragment = data.address(from) >>> 32;
      int to = from + 1;
      while (to < n && to - from < capacity && data.address(to) >>> 32 == fragment) {
        to++;
      }
      long first = data.address(from) & 0xFFFFFFFFL;
      long last = data.address(to - 1) & 0xFFFFFFFFL;
      out.add(new Zone(from, to, fragment, first, last - first + 1));
      from = to;
    }
    return out;
  }

  /** Whether {@link #writeBloomFilter} can hash values of {@code kind} as Lance does. */
  public static boolean bloomSupports(ColumnKind kind) {
    return switch (kind) {
      case INT32,
          INT64,
          UINT32,
          UINT64,
          DATE32,
          DATE64,
          TIMESTAMP,
          UTF8,
          LARGE_UTF8,
          BINARY,
          LARGE_BINARY ->
          true;
      default -> false;
    };
  }

  /**
   * Writes {@value ZoneMapSegmentReader#FILE} under {@code directory} with zones of at most {@code
   * rowsPerZone} rows; returns its size. Per zone: {@code min} and {@code max} (NULL when the zone
   * holds no value; floats: the least and greatest non-NaN values in IEEE total order, the maximum
   * NaN when the zone holds a NaN), {@code null_count}, {@code nan_count}, {@code fragment_id},
   * {@code zone_start}, {@code zone_length}; schema metadata {@code rows_per_zone}.
   */
  public static long writeZoneMap(
      FileIO io,
      String directory,
      ArrowType valueType,
      IndexColumnData data,
      long rowsPerZone,
      BufferAllocator allocator) {
    List<Zone> zones = zones(data, rowsPerZone);
    int count = zones.size();
    Schema schema =
        new Schema(
            List.of(
                new Field("min", FieldType.nullable(valueType), null),
                new Field("max", FieldType.nullable(valueType), null),
                new Field("null_count", FieldType.notNullable(UINT32), null),
                new Field("nan_count", FieldType.notNullable(UINT32), null),
                new Field("fragment_id", FieldType.notNullable(UINT64), null),
                new Field("zone_start", FieldType.notNullable(UINT64), null),
                new Field("zone_length", FieldType.notNullable(UINT64), null)));
    ColumnKind kind = data.kind();
    try (LanceFileWriter writer =
            LanceFileWriter.create(
                io.create(directory + "/" + ZoneMapSegmentReader.FILE),
                LanceSchema.fromArrow(schema),
                WriterOptions.defaults());
        ValueCodec.VectorBuilder min =
            new ValueCodec.VectorBuilder(schema.getFields().get(0), kind, count, allocator);
        ValueCodec.VectorBuilder max =
            new ValueCodec.VectorBuilder(schema.getFields().get(1), kind, count, allocator);
        UInt4Vector nulls = new UInt4Vector("null_count", allocator);
        UInt4Vector nans = new UInt4Vector("nan_count", allocator);
        UInt8Vector fragments = new UInt8Vector("fragment_id", allocator);
        UInt8Vector starts = new UInt8Vector("zone_start", allocator);
        UInt8Vector lengths = new UInt8Vector("zone_length", allocator)) {
      writer.putSchemaMetadata("rows_per_zone", Long.toString(rowsPerZone));
      for (org.apache.arrow.vector.BaseFixedWidthVector v :
          List.of(nulls, nans, fragments, starts, lengths)) {
        v.allocateNew(Math.max(1, count));
      }
      for (int z = 0; z < count; z++) {
        Zone zone = zones.get(z);
        int nullCount = 0;
        int nanCount = 0;
        int lo = -1;
        int hi = -1;
        for (int r = zone.from(); r < zone.to(); r++) {
          if (data.isNull(r)) {
            nullCount++;
          } else if (kind.isFloat() && isNaN(kind, data.key(r))) {
            nanCount++;
          } else {
            if (lo < 0 || compare(data, r, lo) < 0) {
              lo = r;
            }
            if (hi < 0 || compare(data, r, hi) > 0) {
              hi = r;
            }
          }
        }
        if (lo >= 0) {
          set(min, z, data, lo);
          if (nanCount > 0) {
            max.setKey(z, nanKey(kind));
          } else {
            set(max, z, data, hi);
          }
        } else if (nanCount > 0) {
          min.setKey(z, nanKey(kind));
          max.setKey(z, nanKey(kind));
        }
        nulls.set(z, nullCount);
        nans.set(z, nanCount);
        fragments.set(z, zone.fragment());
        starts.set(z, zone.start());
        lengths.set(z, zone.length());
      }
      for (FieldVector v : List.<FieldVector>of(nulls, nans, fragments, starts, lengths)) {
        v.setValueCount(count);
      }
      if (count > 0) {
        List<FieldVector> vectors =
            List.of(min.finish(count), max.finish(count), nulls, nans, fragments, starts, lengths);
        writer.write(new VectorSchemaRoot(schema.getFields(), vectors, count));
      }
      return writer.finish().fileSizeBytes();
    }
  }

  /**
   * Writes {@value BloomFilterSegmentReader#FILE} under {@code directory}: zones of at most {@code
   * items} rows, each with {@code has_null} and a split-block bloom filter of the zone's non-NULL
   * values sized as Lance sizes it ({@code -8 * items / ln(1 - p^(1/8))} bits, whole bytes, clamped
   * to [32 B, 128 MiB] and rounded up to a power of two); schema metadata {@code bloomfilter_item}
   * and {@code bloomfilter_probability}. Returns the file's size.
   */
  public static long writeBloomFilter(
      FileIO io,
      String directory,
      IndexColumnData data,
      long items,
      double probability,
      BufferAllocator allocator) {
    List<Zone> zones = zones(data, items);
    int count = zones.size();
    int words = filterBytes(items, probability) / 4;
    Schema schema =
        new Schema(
            List.of(
                new Field("fragment_id", FieldType.notNullable(UINT64), null),
                new Field("zone_start", FieldType.notNullable(UINT64), null),
                new Field("zone_length", FieldType.notNullable(UINT64), null),
                new Field("has_null", FieldType.notNullable(ArrowType.Bool.INSTANCE), null),
                new Field(
                    "bloom_filter_data", FieldType.notNullable(ArrowType.Binary.INSTANCE), null)));
    try (LanceFileWriter writer =
        LanceFileWriter.create(
            io.create(directory + "/" + BloomFilterSegmentReader.FILE),
            LanceSchema.fromArrow(schema),
            WriterOptions.defaults())) {
      writer.putSchemaMetadata("bloomfilter_item", Long.toString(items));
      writer.putSchemaMetadata("bloomfilter_probability", rustFloat(probability));
      int batch = Math.max(1, (64 << 20) / (words * 4));
      for (int from = 0; from < count; from += batch) {
        int to = Math.min(count, from + batch);
        int n = to - from;
        try (UInt8Vector fragments = new UInt8Vector("fragment_id", allocator);
            UInt8Vector starts = new UInt8Vector("zone_start", allocator);
            UInt8Vector lengths = new UInt8Vector("zone_length", allocator);
            BitVector hasNull = new BitVector("has_null", allocator);
            VarBinaryVector filters = new VarBinaryVector("bloom_filter_data", allocator)) {
          fragments.allocateNew(n);
          starts.allocateNew(n);
          lengths.allocateNew(n);
          hasNull.allocateNew(n);
          filters.allocateNew((long) n * words * 4, n);
          for (int z = from; z < to; z++) {
            Zone zone = zones.get(z);
            int[] filter = new int[words];
            boolean nulls = false;
            for (int r = zone.from(); r < zone.to(); r++) {
              if (data.isNull(r)) {
                nulls = true;
              } else {
                insert(filter, XxHash64.hash(hashedBytes(data, r), 0));
              }
            }
            fragments.set(z - from, zone.fragment());
            starts.set(z - from, zone.start());
            lengths.set(z - from, zone.length());
            hasNull.set(z - from, nulls ? 1 : 0);
            ByteBuffer bytes = ByteBuffer.allocate(words * 4).order(ByteOrder.LITTLE_ENDIAN);
            bytes.asIntBuffer().put(filter);
            filters.setSafe(z - from, bytes.array());
          }
          for (FieldVector v : List.<FieldVector>of(fragments, starts, lengths, hasNull, filters)) {
            v.setValueCount(n);
          }
          writer.write(
              new VectorSchemaRoot(
                  schema.getFields(), List.of(fragments, starts, lengths, hasNull, filters), n));
        }
      }
      return writer.finish().fileSizeBytes();
    }
  }

  /** Bytes of one zone's filter for {@code items} values at false-positive {@code p}. */
  static int filterBytes(long items, double p) {
    double bits = -8.0 * items / Math.log(1.0 - Math.pow(p, 1.0 / 8.0));
    long bytes = bits >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) bits / 8;
    bytes = Math.max(MIN_FILTER_BYTES, Math.min(MAX_FILTER_BYTES, bytes));
    return nextPowerOfTwo(bytes);
  }

  private static int nextPowerOfTwo(long v) {
    long p = Long.highestOneBit(v);
    return (int) (p == v ? v : p << 1);
  }

  static void insert(int[] words, long hash) {
    long blocks = words.length / 8;
    int block = (int) (((hash >>> 32) * blocks) >>> 32);
    int low = (int) hash;
    for (int i = 0; i < 8; i++) {
      int bit = (low * SALT[i]) >>> 27;
      words[8 * block + i] |= 1 << bit;
    }
  }

  /** The bytes Lance hashes for row {@code r}: little-endian at the type's width, or as stored. */
  private static byte[] hashedBytes(IndexColumnData data, int r) {
    if (!data.keyed()) {
      return data.bytes(r);
    }
    ColumnKind kind = data.kind();
    long key = data.key(r);
    int width =
        kind == ColumnKind.INT32 || kind == ColumnKind.UINT32 || kind == ColumnKind.DATE32 ? 4 : 8;
    long raw = kind == ColumnKind.UINT64 ? key ^ Long.MIN_VALUE : key;
    byte[] out = new byte[width];
    for (int i = 0; i < width; i++) {
      out[i] = (byte) (raw >>> (8 * i));
    }
    return out;
  }

  /** A probability as Rust's {@code f64} Display writes it (no exponent). */
  static String rustFloat(double d) {
    String s = BigDecimal.valueOf(d).toPlainString();
    return s.endsWith(".0") ? s.substring(0, s.length() - 2) : s;
  }

  private static int compare(IndexColumnData data, int a, int b) {
    if (data.keyed()) {
      return Long.compare(data.key(a), data.key(b));
    }
    return Arrays.compareUnsigned(data.bytes(a), data.bytes(b));
  }

  private static void set(ValueCodec.VectorBuilder target, int slot, IndexColumnData data, int r) {
    if (data.keyed()) {
      target.setKey(slot, data.key(r));
    } else {
      target.setBytes(slot, data.bytes(r));
    }
  }

  private static boolean isNaN(ColumnKind kind, long key) {
    long raw = key ^ ((key >> 63) & Long.MAX_VALUE);
    return switch (kind) {
      case FLOAT64 -> Double.isNaN(Double.longBitsToDouble(raw));
      case FLOAT32 -> {
        int k = (int) key;
        yield Float.isNaN(Float.intBitsToFloat(k ^ ((k >> 31) & Integer.MAX_VALUE)));
      }
      case FLOAT16 -> {
        int k = (int) key;
        int bits = k ^ ((k >> 15) & 0x7FFF);
        yield (bits & 0x7C00) == 0x7C00 && (bits & 0x3FF) != 0;
      }
      default -> false;
    };
  }

  /** The key of the canonical positive NaN of a float kind (its bits are their own key). */
  private static long nanKey(ColumnKind kind) {
    return switch (kind) {
      case FLOAT64 -> Double.doubleToRawLongBits(Double.NaN);
      case FLOAT32 -> Float.floatToRawIntBits(Float.NaN);
      default -> 0x7E00;
    };
  }
}
