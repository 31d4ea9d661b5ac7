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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Reads one BTree index segment ({@link BTreeFiles}) of a dataset and answers {@link Condition}s
 * with row addresses. Opening reads only page_lookup.lance; a search then reads, from
 * page_data.lance, just the pages whose lookup entry may match, and checks each page it reads
 * against its entry. Instances are thread-safe; close to release the page file.
 */
public final class BTreeSegmentReader implements AutoCloseable {
  /** Pages read per request to page_data.lance (bounds the memory of one read). */
  private static final int PAGES_PER_READ = 32;

  /**
   * Decoded pages each cached reader keeps (a page holds one lookup batch of values and row ids).
   */
  private static final int PAGE_CACHE_CAPACITY = 64;

  /** Heap of a reader besides its lookup and pages: the open page file and its parsed metadata. */
  private static final long READER_OVERHEAD_BYTES = 8192;

  /** Transient Arrow memory of cached readers' reads; every read frees its buffers. */
  private static final BufferAllocator CACHE_ALLOCATOR = new RootAllocator();

  /** A segment cached in a session: its directory, id and the indexed column's type. */
  private record CacheKey(String directory, UUID segment, ArrowType valueType) {}

  /** Readers in a session's cache, weighed by {@link #estimatedBytes()}. */
  private static final MemoryCache.Kind<CacheKey, BTreeSegmentReader> SEGMENTS =
      new MemoryCache.Kind<>(CacheKind.SCALAR_INDEX, BTreeSegmentReader::estimatedBytes);

  private final String indexName;
  private final ColumnKind kind;
  private final ArrowType valueType;
  private final FileIO io;
  private final String directory;
  private final List<IndexFile> files;
  private final BufferAllocator allocator;
  private final String lookupName;
  private final String pagesName;

  /** The manifest listing the segment (named in errors), or null. */
  private final String listedIn;

  private final PageLookup lookup;
  private final long lookupBytes;
  private InputFile pagesFile;
  private LanceFileReader pagesReader;

  /** Decoded pages by page number; null for readers that are not shared. Guarded by this. */
  private final Map<Integer, PageValues> pageCache;

  /** Estimated bytes of {@link #pageCache}'s pages. */
  private final AtomicLong pageCacheBytes = new AtomicLong();

  /** Told when pages were added to {@link #pageCache} (the cache holding this weighs it again). */
  private final Consumer<BTreeSegmentReader> grown;

  private BTreeSegmentReader(
      String indexName,
      ColumnKind kind,
      ArrowType valueType,
      FileIO io,
      String directory,
      List<IndexFile> files,
      BufferAllocator allocator,
      Consumer<BTreeSegmentReader> grown,
      String listedIn) {
    this.indexName = indexName;
    this.listedIn = listedIn;
    this.grown = grown;
    this.pageCache =
        grown == null
            ? null
            : new LinkedHashMap<>(16, 0.75f, true) {
              @Override
              protected boolean removeEldestEntry(Map.Entry<Integer, PageValues> eldest) {
                if (size() > PAGE_CACHE_CAPACITY) {
                  pageCacheBytes.addAndGet(-eldest.getValue().estimatedBytes());
                  return true;
                }
                return false;
              }
            };
    this.kind = kind;
    this.valueType = valueType;
    this.io = io;
    this.directory = directory;
    this.files = files;
    this.allocator = allocator;
    String[] names =
        BTreeFiles.fileNames(files.stream().map(IndexFile::getPath).toList(), indexName, directory);
    this.lookupName = names[0];
    this.pagesName = names[1];
    try (InputFile in = openFile(lookupName)) {
      this.lookup = PageLookup.read(in, indexName, kind, valueType, allocator);
    } catch (StorageException e) {
      throw ScalarIndexException.unreadable(indexName, directory + "/" + lookupName, e);
    }
    this.lookupBytes = lookup.estimatedBytes();
  }

  /**
   * Opens the segment stored under {@code directory} (the segment's {@code _indices/<uuid>}
   * location) of an index on {@code column}.
   */
  public static BTreeSegmentReader open(
      FileIO io,
      String directory,
      IndexSegment segment,
      LanceField column,
      BufferAllocator allocator) {
    try {
      return new BTreeSegmentReader(
          segment.name(),
          kindOf(segment, column),
          column.arrowType(),
          io,
          directory,
          IndexInternals.proto(segment).getFilesList(),
          allocator,
          null,
          segment.listedIn());
    } catch (dev.lancelot.engine.LancelotException e) {
      throw segment.inContext(e);
    }
  }

  /**
   * The value kind of the indexed column, refused with an explanation when this engine cannot read
   * it.
   */
  private static ColumnKind kindOf(IndexSegment segment, LanceField column) {
    ColumnKind kind = ColumnKind.of(column.arrowType());
    if (!ValueCodec.supports(kind)) {
      throw new ScalarIndexException(
          "Cannot read BTree index \""
              + segment.name()
              + "\": its column "
              + column.name()
              + " has type "
              + column.logicalType()
              + ", which this engine does not index. Drop the "
              + "index or query without it.");
    }
    return kind;
  }

  /**
   * A shared reader of the segment, from {@code cache} (the session's) keyed by the segment's
   * directory: its page lookup is read once, and up to {@value #PAGE_CACHE_CAPACITY} decoded pages
   * are kept, so repeated prefilters do not reread the index. The reader is weighed by {@link
   * #estimatedBytes()}, again whenever it keeps new pages, and leaves the cache when the session
   * needs room. Callers must not close it.
   */
  public static BTreeSegmentReader cached(
      MemoryCache cache, FileIO io, String directory, IndexSegment segment, LanceField column) {
    return cache.get(
        SEGMENTS,
        new CacheKey(directory, segment.uuid(), column.arrowType()),
        key -> {
          try {
            return new BTreeSegmentReader(
                segment.name(),
                kindOf(segment, column),
                column.arrowType(),
                io,
                directory,
                IndexInternals.proto(segment).getFilesList(),
                CACHE_ALLOCATOR,
                reader -> cache.resized(SEGMENTS, key, reader),
                segment.listedIn());
          } catch (dev.lancelot.engine.LancelotException e) {
            throw segment.inContext(e);
          }
        });
  }

  /**
   * Heap held by this reader (estimate): its page lookup, the pages it keeps, and a fixed part for
   * the open page file.
   */
  public long estimatedBytes() {
    return READER_OVERHEAD_BYTES + lookupBytes + pageCacheBytes.get();
  }

  public PageLookup lookup() {
    return lookup;
  }

  /** Rows in the segment (from page_data.lance's footer). */
  public synchronized long numRows() {
    return pages().numRows();
  }

  /** The rows each condition selects, in the order given, and how many pages were read. */
  public record Answer(List<FragmentRows> rows, int pagesRead) {}

  /** Answers every condition, reading each page that any of them may match once. */
  public synchronized Answer search(List<Condition> conditions) {
    List<FragmentRows> out = new ArrayList<>();
    TreeSet<Integer> needed = new TreeSet<>();
    List<BitSet> pagesOf = new ArrayList<>(); // per condition: the pages it may match
    for (Condition c : conditions) {
      out.add(new FragmentRows());
      BitSet pages = new BitSet();
      for (PageEntry p : lookup.pages()) {
        if (c.mayMatch(p)) {
          pages.set(p.page());
          needed.add(p.page());
        }
      }
      pagesOf.add(pages);
    }
    List<Integer> pageList = new ArrayList<>();
    for (int page : needed) {
      PageValues cachedPage = pageCache == null ? null : pageCache.get(page);
      if (cachedPage == null) {
        pageList.add(page);
      } else {
        apply(conditions, pagesOf, page, cachedPage, out);
      }
    }
    for (int from = 0; from < pageList.size(); from += PAGES_PER_READ) {
      List<Integer> chunk =
          pageList.subList(from, Math.min(pageList.size(), from + PAGES_PER_READ));
      List<PageValues> values = readPages(chunk);
      for (int j = 0; j < chunk.size(); j++) {
        if (pageCache != null) {
          pageCacheBytes.addAndGet(values.get(j).estimatedBytes());
          PageValues replaced = pageCache.put(chunk.get(j), values.get(j));
          if (replaced != null) {
            pageCacheBytes.addAndGet(-replaced.estimatedBytes());
          }
        }
        apply(conditions, pagesOf, chunk.get(j), values.get(j), out);
      }
    }
    if (pageCache != null && !pageList.isEmpty()) {
      grown.accept(this);
    }
    return new Answer(out, needed.size());
  }

  private static void apply(
      List<Condition> conditions,
      List<BitSet> pagesOf,
      int page,
      PageValues values,
      List<FragmentRows> out) {
    for (int i = 0; i < conditions.size(); i++) {
      if (pagesOf.get(i).get(page)) {
        collect(conditions.get(i), values, out.get(i));
      }
    }
  }

  private static void collect(Condition c, PageValues page, FragmentRows out) {
    for (int r = 0; r < page.rows(); r++) {
      if (c.test(page, r)) {
        out.add(page.id(r));
      }
    }
  }

  /** Reads the given pages (ascending) with one take, decodes and checks them. */
  private List<PageValues> readPages(List<Integer> pages) {
    LanceFileReader reader;
    synchronized (this) {
      reader = pages();
    }
    long total = reader.numRows();
    int batch = lookup.batchSize();
    long[] starts = new long[pages.size()];
    int[] counts = new int[pages.size()];
    int rows = 0;
    for (int i = 0; i < pages.size(); i++) {
      starts[i] = (long) pages.get(i) * batch;
      if (starts[i] >= total) {
        throw corrupt(
            "the page lookup lists page "
                + pages.get(i)
                + " but the page file has only "
                + total
                + " rows ("
                + batch
                + " per page)",
            null,
            lookupName);
      }
      counts[i] = (int) Math.min(batch, total - starts[i]);
      rows += counts[i];
    }
    long[] take = new long[rows];
    int k = 0;
    for (int i = 0; i < pages.size(); i++) {
      for (int r = 0; r < counts[i]; r++) {
        take[k++] = starts[i] + r;
      }
    }
    PageValues all;
    try (VectorSchemaRoot root =
        reader.take(FileProjection.all(reader.schema()), take, allocator)) {
      all = PageValues.decode(root.getVector(0), root.getVector(1), kind, rows);
    } catch (LanceFileException e) {
      throw corrupt("its pages cannot be decoded (" + e.getMessage() + ")", e, pagesName);
    } catch (StorageException e) {
      throw ScalarIndexException.unreadable(indexName, directory + "/" + pagesName, e);
    }
    List<PageValues> out = new ArrayList<>();
    int from = 0;
    for (int i = 0; i < pages.size(); i++) {
      PageValues page = all.slice(from, from + counts[i]);
      from += counts[i];
      check(page, lookup.entry(pages.get(i)));
      out.add(page);
    }
    return out;
  }

  /** A page must agree with its lookup entry: same NULL count, every value within [min, max]. */
  private void check(PageValues page, PageEntry entry) {
    if (page.nullCount() != entry.nullCount()) {
      throw corrupt(
          "page "
              + entry.page()
              + " holds "
              + page.nullCount()
              + " NULL values but page_lookup.lance says "
              + entry.nullCount(),
          null,
          pagesName);
    }
    Condition bounds = entry.hasValues() ? boundsOf(entry, page.hasKeys()) : null;
    for (int r = 0; r < page.rows(); r++) {
      if (!page.isNull(r) && (bounds == null || !bounds.test(page, r))) {
        throw corrupt(
            "page "
                + entry.page()
                + " row "
                + r
                + " holds a value outside the page's [min, max] in "
                + "page_lookup.lance",
            null,
            pagesName);
      }
    }
  }

  private static Condition boundsOf(PageEntry e, boolean keys) {
    if (keys) {
      return new Condition.KeyRange(e.lowKey(), e.maxKey(), false);
    }
    return new Condition.BytesRange(e.lowBytes(), true, e.maxBytes(), true, false);
  }

  private LanceFileReader pages() {
    if (pagesReader != null) {
      return pagesReader;
    }
    InputFile file = null;
    try {
      file = openFile(pagesName);
      LanceFileReader reader = LanceFileReader.open(file);
      List<LanceField> fields = reader.schema().fields();
      List<String> names = fields.stream().map(LanceField::name).toList();
      if (!names.equals(List.of(BTreeFiles.VALUES, BTreeFiles.IDS))
          || !fields.get(0).arrowType().equals(valueType)
          || !fields.get(1).arrowType().equals(new ArrowType.Int(64, false))) {
        throw corrupt(
            "its columns are " + fields + ", expected [values: " + valueType + ", ids: uint64]",
            null,
            pagesName);
      }
      pagesFile = file;
      pagesReader = reader;
      return reader;
    } catch (LanceFileException e) {
      close(file);
      throw corrupt("it is not a readable Lance file (" + e.getMessage() + ")", e, pagesName);
    } catch (StorageException e) {
      close(file);
      throw ScalarIndexException.unreadable(indexName, directory + "/" + pagesName, e);
    } catch (RuntimeException e) {
      close(file);
      throw e;
    }
  }

  private static void close(InputFile file) {
    if (file != null) {
      file.close();
    }
  }

  private InputFile openFile(String name) {
    String location = directory + "/" + name;
    for (IndexFile f : files) {
      if (f.getPath().equals(name)) {
        return io.newInputFile(location, f.getSizeBytes());
      }
    }
    return io.newInputFile(location);
  }

  private ScalarIndexException corrupt(String reason, Throwable cause, String file) {
    return ScalarIndexException.corrupt(
        "BTree", indexName, directory + "/" + file, reason, listedIn, cause);
  }

  @Override
  public synchronized void close() {
    if (pagesFile != null) {
      pagesFile.close();
      pagesFile = null;
      pagesReader = null;
    }
  }

  @Override
  public String toString() {
    return "BTreeSegmentReader["
        + indexName
        + ", "
        + directory
        + ", pages="
        + lookup.pages().size()
        + ", kind="
        + kind
        + ", "
        + Arrays.asList(files.stream().map(IndexFile::getPath).toArray())
        + "]";
  }
}
