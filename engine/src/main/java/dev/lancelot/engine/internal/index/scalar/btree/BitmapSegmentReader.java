package dev.lancelot.engine.internal.index.scalar.btree;

import dev.lancelot.engine.CacheKind;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.scalar.ScalarIndexException;
import dev.lancelot.engine.internal.expr.eval.ColumnKind;
import dev.lancelot.engine.internal.file.FileProjection;
import dev.lancelot.engine.internal.file.LanceFileException;
import dev.lancelot.engine.internal.file.LanceFileReader;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexFile;
import dev.lancelot.engine.internal.index.IndexInternals;
import dev.lancelot.engine.internal.util.MemoryCache;
import dev.lancelot.engine.io.FileIO;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.io.StorageException;
import dev.lancelot.engine.schema.LanceField;
import dev.lancelot.engine.schema.LanceSchema;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.roaringbitmap.RoaringBitmap;

/**
 * Reads one bitmap index segment as lance-core 7 writes it and answers {@link Condition}s with row
 * addresses, exactly: one Lance file, {@code bitmap_page_lookup.lance}, with a row per distinct
 * value: {@code keys} (the column's type; one NULL key holds the NULL rows) and {@code bitmaps}
 * (binary: the rows holding that value, serialized as Lance's row address tree map: a u32 count of
 * fragments, then per fragment its u32 id, the u32 byte length of a portable Roaring bitmap of
 * offsets and the bitmap; a length of 0 means the whole fragment, which lance-core's builds do not
 * write and this reader refuses).
 *
 * <p>Opening reads the keys only. A search tests each key with each condition, as a BTree search
 * tests each row, and reads and unites the bitmaps of the matching keys. Thread-safe.
 */
public final class BitmapSegmentReader {
  /** The lookup file's name in lance-core 7. */
  public static final String LOOKUP_FILE = "bitmap_page_lookup.lance";

  private static final BufferAllocator CACHE_ALLOCATOR = new RootAllocator();
  private static final long READER_OVERHEAD_BYTES = 8192;

  private record CacheKey(String directory, UUID segment, ArrowType valueType) {}

  private static final MemoryCache.Kind<CacheKey, BitmapSegmentReader> SEGMENTS =
      new MemoryCache.Kind<>(CacheKind.SCALAR_INDEX, BitmapSegmentReader::estimatedBytes);

  private final String kind;
  private final String indexName;
  private final String location;
  private final String listedIn;
  private final FileIO io;
  private final long size;
  private final PageValues keys;

  private BitmapSegmentReader(
      String kindName,
      String indexName,
      ColumnKind kind,
      ArrowType valueType,
      FileIO io,
      String directory,
      List<IndexFile> files,
      String listedIn) {
    this.kind = kindName;
    this.indexName = indexName;
    this.listedIn = listedIn;
    this.io = io;
    this.location = directory + "/" + LOOKUP_FILE;
    long known = -1;
    for (IndexFile f : files) {
      if (f.getPath().equals(LOOKUP_FILE)) {
        known = f.getSizeBytes();
      }
    }
    this.size = known;
    try (InputFile in = open()) {
      LanceFileReader reader = LanceFileReader.open(in);
      LanceSchema schema = reader.schema();
      List<String> names = schema.fields().stream().map(LanceField::name).toList();
      if (!names.equals(List.of("keys", "bitmaps"))
          || !schema.fields().get(0).arrowType().equals(valueType)
          || !(schema.fields().get(1).arrowType() instanceof ArrowType.Binary)) {
        throw corrupt(
            "its columns are " + schema.fields() + ", expected [keys: " + valueType + ", bitmaps]",
            null);
      }
      int rows = Math.toIntExact(reader.numRows());
      long[] all = new long[rows];
      for (int i = 0; i < rows; i++) {
        all[i] = i;
      }
      try (VectorSchemaRoot root =
          reader.take(FileProjection.ofNames(schema, List.of("keys")), all, CACHE_ALLOCATOR)) {
        boolean[] nulls = ValueCodec.nulls(root.getVector(0), rows);
        this.keys =
            ValueCodec.usesKeys(kind)
                ? new PageValues(nulls, ValueCodec.keys(root.getVector(0), kind, rows), null, all)
                : new PageValues(nulls, null, ValueCodec.bytes(root.getVector(0), kind, rows), all);
      }
    } catch (LanceFileException e) {
      throw corrupt("it is not a readable Lance file (" + e.getMessage() + ")", e);
    } catch (StorageException e) {
      throw ScalarIndexException.unreadable(this.kind, indexName, location, e);
    }
  }

  /** A shared reader of the segment from {@code cache} (the session's): its keys are read once. */
  public static BitmapSegmentReader cached(
      MemoryCache cache, FileIO io, String directory, IndexSegment segment, LanceField column) {
    return cache.get(
        SEGMENTS,
        new CacheKey(directory, segment.uuid(), column.arrowType()),
        key -> {
          ColumnKind kind = ColumnKind.of(column.arrowType());
          if (!ValueCodec.supports(kind)) {
            throw new ScalarIndexException(
                "Cannot read bitmap index \""
                    + segment.name()
                    + "\": its column "
                    + column.name()
                    + " has type "
                    + column.logicalType()
                    + ", which this engine does not index. Drop the index or query without it.");
          }
          try {
            return new BitmapSegmentReader(
                segment.type() == dev.lancelot.engine.index.IndexType.LABEL_LIST
                    ? "label-list"
                    : "bitmap",
                segment.name(),
                kind,
                column.arrowType(),
                io,
                directory,
                IndexInternals.proto(segment).getFilesList(),
                segment.listedIn());
          } catch (dev.lancelot.engine.LancelotException e) {
            throw segment.inContext(e);
          }
        });
  }

  /** Heap held: the decoded keys and a fixed part. */
  public long estimatedBytes() {
    return READER_OVERHEAD_BYTES + keys.estimatedBytes();
  }

  /** Distinct values (NULL included) in the segment. */
  public int keyCount() {
    return keys.rows();
  }

  /**
   * The rows each condition selects, in the order given; the answer's page count is the number of
   * bitmaps read.
   */
  public BTreeSegmentReader.Answer search(List<Condition> conditions) {
    List<List<Integer>> matching = new ArrayList<>();
    java.util.TreeSet<Integer> needed = new java.util.TreeSet<>();
    for (Condition c : conditions) {
      List<Integer> rows = new ArrayList<>();
      for (int r = 0; r < keys.rows(); r++) {
        if (c.test(keys, r)) {
          rows.add(r);
          needed.add(r);
        }
      }
      matching.add(rows);
    }
    java.util.Map<Integer, FragmentRows> bitmaps = read(needed);
    List<FragmentRows> out = new ArrayList<>();
    for (List<Integer> rows : matching) {
      FragmentRows acc = new FragmentRows();
      for (int r : rows) {
        acc = FragmentRows.or(acc, bitmaps.get(r));
      }
      out.add(acc);
    }
    return new BTreeSegmentReader.Answer(out, needed.size());
  }

  /**
   * Label-list search (the segment's keys are list elements, each bitmap the rows whose list holds
   * that element): each condition is made of {@link Condition.Element}s, each selecting the rows
   * with an element it accepts, combined by {@link Condition.AllOf} (intersection) and {@link
   * Condition.AnyOf} (union). The answer's page count is the number of bitmaps read.
   */
  public BTreeSegmentReader.Answer searchLabels(List<Condition> conditions) {
    java.util.TreeSet<Integer> needed = new java.util.TreeSet<>();
    conditions.forEach(c -> collectLabelKeys(c, needed));
    java.util.Map<Integer, FragmentRows> bitmaps = read(needed);
    List<FragmentRows> out = new ArrayList<>();
    for (Condition c : conditions) {
      out.add(labelRows(c, bitmaps));
    }
    return new BTreeSegmentReader.Answer(out, needed.size());
  }

  private void collectLabelKeys(Condition c, java.util.Set<Integer> needed) {
    if (c instanceof Condition.AllOf all) {
      all.terms().forEach(t -> collectLabelKeys(t, needed));
    } else if (c instanceof Condition.AnyOf any) {
      any.terms().forEach(t -> collectLabelKeys(t, needed));
    } else if (c instanceof Condition.Element e) {
      for (int r = 0; r < keys.rows(); r++) {
        if (e.item().test(keys, r)) {
          needed.add(r);
        }
      }
    } else {
      throw new IllegalArgumentException("a label-list index cannot answer " + c.describe());
    }
  }

  private FragmentRows labelRows(Condition c, java.util.Map<Integer, FragmentRows> bitmaps) {
    if (c instanceof Condition.AllOf all) {
      FragmentRows acc = null;
      for (Condition t : all.terms()) {
        FragmentRows next = labelRows(t, bitmaps);
        acc = acc == null ? next : FragmentRows.and(acc, next);
      }
      return acc;
    } else if (c instanceof Condition.AnyOf any) {
      FragmentRows acc = new FragmentRows();
      for (Condition t : any.terms()) {
        acc = FragmentRows.or(acc, labelRows(t, bitmaps));
      }
      return acc;
    }
    Condition item = ((Condition.Element) c).item();
    FragmentRows acc = new FragmentRows();
    for (int r = 0; r < keys.rows(); r++) {
      if (item.test(keys, r)) {
        acc = FragmentRows.or(acc, bitmaps.get(r));
      }
    }
    return acc;
  }

  private java.util.Map<Integer, FragmentRows> read(java.util.SortedSet<Integer> rows) {
    java.util.Map<Integer, FragmentRows> out = new java.util.HashMap<>();
    if (rows.isEmpty()) {
      return out;
    }
    long[] take = rows.stream().mapToLong(Integer::longValue).toArray();
    try (InputFile in = open()) {
      LanceFileReader reader = LanceFileReader.open(in);
      try (VectorSchemaRoot root =
          reader.take(
              FileProjection.ofNames(reader.schema(), List.of("bitmaps")), take, CACHE_ALLOCATOR)) {
        VarBinaryVector bytes = (VarBinaryVector) root.getVector(0);
        for (int i = 0; i < take.length; i++) {
          if (bytes.isNull(i)) {
            throw corrupt("the bitmap of key row " + take[i] + " is NULL", null);
          }
          out.put((int) take[i], decode(bytes.get(i), take[i]));
        }
      }
    } catch (LanceFileException e) {
      throw corrupt("its bitmaps cannot be decoded (" + e.getMessage() + ")", e);
    } catch (StorageException e) {
      throw ScalarIndexException.unreadable(this.kind, indexName, location, e);
    }
    return out;
  }

  /** One serialized row address tree map. */
  private FragmentRows decode(byte[] bytes, long row) {
    FragmentRows rows = new FragmentRows();
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    try {
      int fragments = b.getInt();
      for (int i = 0; i < fragments; i++) {
        int fragment = b.getInt();
        int length = b.getInt();
        if (length == 0) {
          throw corrupt(
              "the bitmap of key row "
                  + row
                  + " selects all of fragment "
                  + Integer.toUnsignedLong(fragment)
                  + ", which this reader does not support",
              null);
        }
        if (length < 0 || length > b.remaining()) {
          throw corrupt("the bitmap of key row " + row + " is truncated", null);
        }
        RoaringBitmap offsets = new RoaringBitmap();
        offsets.deserialize(b.slice(b.position(), length));
        if (offsets.serializedSizeInBytes() != length) {
          throw corrupt("the bitmap of key row " + row + " has a wrong length", null);
        }
        b.position(b.position() + length);
        rows.addAll(fragment, offsets);
      }
      if (b.hasRemaining()) {
        throw corrupt("the bitmap of key row " + row + " has trailing bytes", null);
      }
    } catch (java.nio.BufferUnderflowException | IOException | IllegalArgumentException e) {
      throw corrupt("the bitmap of key row " + row + " cannot be decoded", e);
    }
    return rows;
  }

  private InputFile open() {
    return size >= 0 ? io.newInputFile(location, size) : io.newInputFile(location);
  }

  private ScalarIndexException corrupt(String reason, Throwable cause) {
    return ScalarIndexException.corrupt(kind, indexName, location, reason, listedIn, cause);
  }

  @Override
  public String toString() {
    return "BitmapSegmentReader[" + indexName + ", " + location + ", keys=" + keys.rows() + "]";
  }
}
