package dev.lancelot.engine.internal.index.scalar.zone;

import dev.lancelot.engine.internal.expr.eval.ColumnKind;
import dev.lancelot.engine.internal.index.scalar.btree.Condition;
import dev.lancelot.engine.schema.LanceSchema;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * A lance-core 7 bloom filter index ({@code bloomfilter.lance}): per zone {@code has_null} and
 * {@code bloom_filter_data}, a split-block bloom filter as Parquet specifies it: blocks of eight
 * little-endian 32-bit words; a value's 64-bit xxHash (seed 0) of its bytes (integers, dates and
 * timestamps little-endian at their width, strings and binaries as they are) picks the block by its
 * high 32 bits, and its low 32 bits, multiplied by eight salts, pick one bit per word.
 *
 * <p>Equality, {@code IN} and {@code IS NULL} skip the zones whose filter rules their values out;
 * every other condition keeps every zone ({@link #narrows}).
 */
public final class BloomFilterSegmentReader extends ZoneSegmentReader {
  /** The file's name in lance-core 7. */
  public static final String FILE = "bloomfilter.lance";

  private static final List<String> COLUMNS =
      List.of("fragment_id", "zone_start", "zone_length", "has_null", "bloom_filter_data");

  private static final int[] SALT = {
    0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31
  };

  private final ColumnKind columnKind;
  private boolean[] hasNull = new boolean[0];
  private int[][] filters = new int[0][];

  BloomFilterSegmentReader(String indexName, String directory, String listedIn, ColumnKind kind) {
    super("bloom-filter", indexName, directory + "/" + FILE, listedIn);
    this.columnKind = kind;
  }

  static boolean supports(ColumnKind kind) {
    return switch (kind) {
      case INT8,
          INT16,
          INT32,
          INT64,
          UINT8,
          UINT16,
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

  /** Whether a bloom filter can rule zones out for {@code c} (else it keeps every zone). */
  public static boolean narrows(Condition c) {
    if (c instanceof Condition.AllOf all) {
      return all.terms().stream().anyMatch(BloomFilterSegmentReader::narrows);
    } else if (c instanceof Condition.AnyOf any) {
      return any.terms().stream().allMatch(BloomFilterSegmentReader::narrows);
    } else if (c instanceof Condition.Nulls n) {
      return !n.negated();
    } else if (c instanceof Condition.KeyRange r) {
      return !r.outside() && r.lo() == r.hi();
    } else if (c instanceof Condition.KeySet s) {
      return !s.outside();
    } else if (c instanceof Condition.BytesRange r) {
      return !r.outside()
          && r.lo() != null
          && r.hi() != null
          && r.loInclusive()
          && r.hiInclusive()
          && Arrays.equals(r.lo(), r.hi());
    } else if (c instanceof Condition.BytesSet s) {
      return !s.outside();
    }
    return false;
  }

  @Override
  String fileName() {
    return FILE;
  }

  @Override
  List<String> expectedColumns() {
    return COLUMNS;
  }

  @Override
  void readZones(LanceSchema schema, VectorSchemaRoot root, ArrowType valueType) {
    int rows = root.getRowCount();
    hasNull = booleans(root, "has_null", rows);
    if (!(root.getVector("bloom_filter_data") instanceof VarBinaryVector data)) {
      throw corrupt("its column bloom_filter_data is not binary", null);
    }
    filters = new int[rows][];
    for (int z = 0; z < rows; z++) {
      byte[] bytes = data.isNull(z) ? new byte[0] : data.get(z);
      if (bytes.length == 0 || bytes.length % 32 != 0) {
        throw corrupt(
            "the bloom filter of zone " + z + " has " + bytes.length + " bytes, not whole blocks",
            null);
      }
      int[] words = new int[bytes.length / 4];
      ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(words);
      filters[z] = words;
    }
  }

  @Override
  boolean mayMatch(int zone, Condition c) {
    if (c instanceof Condition.AllOf all) {
      return all.terms().stream().allMatch(t -> mayMatch(zone, t));
    } else if (c instanceof Condition.AnyOf any) {
      return any.terms().stream().anyMatch(t -> mayMatch(zone, t));
    } else if (!narrows(c)) {
      return true;
    } else if (c instanceof Condition.Nulls) {
      return hasNull[zone];
    } else if (c instanceof Condition.KeyRange r) {
      return contains(zone, keyBytes(r.lo()));
    } else if (c instanceof Condition.KeySet s) {
      for (long k : s.keys()) {
        if (contains(zone, keyBytes(k))) {
          return true;
        }
      }
      return false;
    } else if (c instanceof Condition.BytesRange r) {
      return contains(zone, r.lo());
    } else if (c instanceof Condition.BytesSet s) {
      for (byte[] v : s.values()) {
        if (contains(zone, v)) {
          return true;
        }
      }
      return false;
    }
    return true;
  }

  /** The bytes Lance hashes for a value whose key is {@code key}: its little-endian form. */
  private byte[] keyBytes(long key) {
    int width =
        switch (columnKind) {
          case INT8, UINT8 -> 1;
          case INT16, UINT16 -> 2;
          case INT32, UINT32, DATE32 -> 4;
          default -> 8;
        };
    long raw = columnKind == ColumnKind.UINT64 ? key ^ Long.MIN_VALUE : key;
    byte[] out = new byte[width];
    for (int i = 0; i < width; i++) {
      out[i] = (byte) (raw >>> (8 * i));
    }
    return out;
  }

  /** Whether the filter of {@code zone} may hold a value of these bytes. */
  boolean contains(int zone, byte[] value) {
    return containsHash(filters[zone], XxHash64.hash(value, 0));
  }

  static boolean containsHash(int[] words, long hash) {
    long blocks = words.length / 8;
    int block = (int) (((hash >>> 32) * blocks) >>> 32);
    int low = (int) hash;
    for (int i = 0; i < 8; i++) {
      int bit = (low * SALT[i]) >>> 27;
      if ((words[8 * block + i] & (1 << bit)) == 0) {
        return false;
      }
    }
    return true;
  }

  @Override
  long zoneBytes() {
    long bytes = hasNull.length;
    for (int[] f : filters) {
      bytes += 16L + 4L * f.length;
    }
    return bytes;
  }
}
