package dev.lancelot.engine.internal.index.scalar.zone;

import dev.lancelot.engine.CacheKind;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.scalar.ScalarIndexException;
import dev.lancelot.engine.internal.expr.eval.ColumnKind;
import dev.lancelot.engine.internal.file.FileProjection;
import dev.lancelot.engine.internal.file.LanceFileException;
import dev.lancelot.engine.internal.file.LanceFileReader;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexFile;
import dev.lancelot.engine.internal.index.IndexInternals;
import dev.lancelot.engine.internal.index.scalar.btree.BTreeSegmentReader;
import dev.lancelot.engine.internal.index.scalar.btree.Condition;
import dev.lancelot.engine.internal.index.scalar.btree.FragmentRows;
import dev.lancelot.engine.internal.util.MemoryCache;
import dev.lancelot.engine.io.FileIO;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.io.StorageException;
import dev.lancelot.engine.schema.LanceField;
import dev.lancelot.engine.schema.LanceSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.roaringbitmap.RoaringBitmap;

/**
 * One zone index segment of lance-core 7 (a zone map or a bloom filter), read whole when opened:
 * one Lance file with a row per zone, giving its fragment ({@code fragment_id}) and its physical
 * row offsets {@code [zone_start, zone_start + zone_length)} (rows deleted before the build lie
 * inside a zone's span), plus what the kind keeps about the zone's values. A search keeps, per
 * {@link Condition}, every row of each zone that may hold a match. Thread-safe.
 */
public abstract sealed class ZoneSegmentReader
    permits ZoneMapSegmentReader, BloomFilterSegmentReader {
  static final BufferAllocator ALLOCATOR = new RootAllocator();
  private static final long OVERHEAD_BYTES = 4096;

  private record CacheKey(String directory, UUID segment, ArrowType valueType) {}

  private static final MemoryCache.Kind<CacheKey, ZoneSegmentReader> SEGMENTS =
      new MemoryCache.Kind<>(CacheKind.SCALAR_INDEX, ZoneSegmentReader::estimatedBytes);

  final String kind;
  final String indexName;
  final String location;
  final String listedIn;
  private int[] fragments = new int[0];
  private long[] starts = new long[0];
  private long[] lengths = new long[0];

  ZoneSegmentReader(String kind, String indexName, String location, String listedIn) {
    this.kind = kind;
    this.indexName = indexName;
    this.location = location;
    this.listedIn = listedIn;
  }

  /**
   * Whether a zone index of {@code type} on a column of {@code kind} can be read and used: zone
   * maps on every column a BTree can hold, bloom filters on integers, dates, timestamps, strings
   * and binaries.
   */
  public static boolean supports(IndexType type, ColumnKind kind) {
    return type == IndexType.ZONEMAP
        ? ZoneMapSegmentReader.supports(kind)
        : type == IndexType.BLOOM_FILTER && BloomFilterSegmentReader.supports(kind);
  }

  /** A shared reader of the segment from {@code cache} (the session's). */
  public static ZoneSegmentReader cached(
      MemoryCache cache, FileIO io, String directory, IndexSegment segment, LanceField column) {
    return cache.get(
        SEGMENTS,
        new CacheKey(directory, segment.uuid(), column.arrowType()),
        key -> {
          ColumnKind kind = ColumnKind.of(column.arrowType());
          if (!supports(segment.type(), kind)) {
            throw new ScalarIndexException(
                "Cannot read "
                    + segment.type()
                    + " index \""
                    + segment.name()
                    + "\": its column "
                    + column.name()
                    + " has type "
                    + column.logicalType()
                    + ", which this engine does not read such an index of. Drop the index or"
                    + " query without it.");
          }
          List<IndexFile> files = IndexInternals.proto(segment).getFilesList();
          try {
            ZoneSegmentReader r =
                segment.type() == IndexType.ZONEMAP
                    ? new ZoneMapSegmentReader(segment.name(), directory, segment.listedIn(), kind)
                    : new BloomFilterSegmentReader(
                        segment.name(), directory, segment.listedIn(), kind);
            r.load(io, files, column.arrowType());
            return r;
          } catch (dev.lancelot.engine.LancelotException e) {
            throw segment.inContext(e);
          }
        });
  }

  /** The file's name in the index directory. */
  abstract String fileName();

  /** The columns the file must have, in order, the value columns typed {@code valueType}. */
  abstract List<String> expectedColumns();

  /** Checks the file's schema (names already checked) and reads the kind's per-zone data. */
  abstract void readZones(LanceSchema schema, VectorSchemaRoot root, ArrowType valueType);

  /** Whether zone {@code zone} may hold a row {@code c} selects. */
  abstract boolean mayMatch(int zone, Condition c);

  /** Heap held by the kind's per-zone data. */
  abstract long zoneBytes();

  private void load(FileIO io, List<IndexFile> files, ArrowType valueType) {
    long size = -1;
    for (IndexFile f : files) {
      if (f.getPath().equals(fileName())) {
        size = f.getSizeBytes();
      }
    }
    try (InputFile in = size >= 0 ? io.newInputFile(location, size) : io.newInputFile(location)) {
      LanceFileReader reader = LanceFileReader.open(in);
      LanceSchema schema = reader.schema();
      List<String> names = schema.fields().stream().map(LanceField::name).toList();
      if (!names.equals(expectedColumns())) {
        throw corrupt("its columns are " + names + ", expected " + expectedColumns(), null);
      }
      int rows = Math.toIntExact(reader.numRows());
      long[] all = new long[rows];
      for (int i = 0; i < rows; i++) {
        all[i] = i;
      }
      try (VectorSchemaRoot root = reader.take(FileProjection.all(schema), all, ALLOCATOR)) {
        fragments = new int[rows];
        starts = new long[rows];
        lengths = new long[rows];
        long[] fragment = unsigned(root, "fragment_id", rows);
        long[] start = unsigned(root, "zone_start", rows);
        long[] length = unsigned(root, "zone_length", rows);
        for (int z = 0; z < rows; z++) {
          if (fragment[z] < 0
              || fragment[z] > 0xFFFF_FFFFL
              || start[z] < 0
              || length[z] < 0
              || start[z] + length[z] > 0x1_0000_0000L) {
            throw corrupt(
                "zone "
                    + z
                    + " has fragment "
                    + Long.toUnsignedString(fragment[z])
                    + " and rows ["
                    + Long.toUnsignedString(start[z])
                    + ", +"
                    + Long.toUnsignedString(length[z])
                    + "), out of range",
                null);
          }
          fragments[z] = (int) fragment[z];
          starts[z] = start[z];
          lengths[z] = length[z];
        }
        readZones(schema, root, valueType);
      }
    } catch (LanceFileException e) {
      throw corrupt("it is not a readable Lance file (" + e.getMessage() + ")", e);
    } catch (StorageException e) {
      throw ScalarIndexException.unreadable(kind, indexName, location, e);
    }
  }

  /** The values of an unsigned integer column without NULLs. */
  long[] unsigned(VectorSchemaRoot root, String name, int rows) {
    FieldVector v = root.getVector(name);
    if (!(v.getField().getType() instanceof ArrowType.Int t) || t.getIsSigned()) {
      throw corrupt(
          "its column " + name + " is " + v.getField().getType() + ", not unsigned", null);
    }
    long[] out = new long[rows];
    for (int i = 0; i < rows; i++) {
      if (v.isNull(i)) {
        throw corrupt("its column " + name + " is NULL in row " + i, null);
      }
      out[i] = ((Number) v.getObject(i)).longValue();
    }
    return out;
  }

  /** The values of a boolean column without NULLs. */
  boolean[] booleans(VectorSchemaRoot root, String name, int rows) {
    FieldVector v = root.getVector(name);
    if (!(v instanceof BitVector bits)) {
      throw corrupt("its column " + name + " is " + v.getField().getType() + ", not bool", null);
    }
    boolean[] out = new boolean[rows];
    for (int i = 0; i < rows; i++) {
      if (bits.isNull(i)) {
        throw corrupt("its column " + name + " is NULL in row " + i, null);
      }
      out[i] = bits.get(i) != 0;
    }
    return out;
  }

  /** Zones in the segment. */
  public int zoneCount() {
    return fragments.length;
  }

  public long estimatedBytes() {
    return OVERHEAD_BYTES + 20L * fragments.length + zoneBytes();
  }

  /**
   * The rows each condition may select, in the order given: every row of the zones that may hold a
   * match. The answer's page count is the number of zones kept by some condition.
   */
  public BTreeSegmentReader.Answer search(List<Condition> conditions) {
    List<FragmentRows> out = new ArrayList<>();
    boolean[] kept = new boolean[fragments.length];
    for (Condition c : conditions) {
      java.util.Map<Integer, RoaringBitmap> byFragment = new java.util.TreeMap<>();
      for (int z = 0; z < fragments.length; z++) {
        if (lengths[z] > 0 && mayMatch(z, c)) {
          kept[z] = true;
          byFragment
              .computeIfAbsent(fragments[z], f -> new RoaringBitmap())
              .add(starts[z], starts[z] + lengths[z]);
        }
      }
      FragmentRows rows = new FragmentRows();
      byFragment.forEach(rows::addAll);
      out.add(rows);
    }
    int zones = 0;
    for (boolean k : kept) {
      zones += k ? 1 : 0;
    }
    return new BTreeSegmentReader.Answer(out, zones);
  }

  ScalarIndexException corrupt(String reason, Throwable cause) {
    return ScalarIndexException.corrupt(kind, indexName, location, reason, listedIn, cause);
  }

  @Override
  public String toString() {
    return getClass().getSimpleName()
        + "["
        + indexName
        + ", "
        + location
        + ", zones="
        + zoneCount()
        + "]";
  }
}
