package dev.lancelot.engine.internal.index.scalar.btree;

import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.scalar.ScalarIndexException;
import dev.lancelot.engine.internal.expr.eval.ColumnKind;
import dev.lancelot.engine.internal.file.FileProjection;
import dev.lancelot.engine.internal.file.LanceFileException;
import dev.lancelot.engine.internal.file.LanceFileReader;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexFile;
import dev.lancelot.engine.internal.index.IndexInternals;
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

  /** Segments kept open by {@link #cached} (index files never change once written). */
  private static final int CACHE_CAPACITY = 16;

  /**
   * Decoded pages each cached reader keeps (a page holds one lookup batch of values and row ids).
   */
  private static final int PAGE_CACHE_CAPACITY = 64;

  private static final BufferAllocator CACHE_ALLOCATOR = new RootAllocator();
  private static final Map<String, BTreeSegmentReader> CACHE =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, BTreeSegmentReader> eldest) {
          return size() > CACHE_CAPACITY;
        }
      };

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
  private InputFile pagesFile;
  private LanceFileReader pagesReader;

  /** Decoded pages by page number; null for readers that are not shared. */
  private final Map<Integer, PageValues> pageCache;

  private BTreeSegmentReader(
      String indexName,
      ColumnKind kind,
      ArrowType valueType,
      FileIO io,
      String directory,
      List<IndexFile> files,
      BufferAllocator allocator,
      boolean cachePages,
      String listedIn) {
    this.indexName = indexName;
    this.listedIn = listedIn;
    this.pageCache =
        !cachePages
            ? null
            : new LinkedHashMap<>(16, 0.75f, true) {
              @Override
              protected boolean removeEldestEntry(Map.Entry<Integer, PageValues> eldest) {
                return size() > PAGE_CACHE_CAPACITY;
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
          false,
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
   * A shared reader of the segment, from a small process-wide cache keyed by the segment's
   * directory: its page lookup is read once, and up to {@value #PAGE_CACHE_CAPACITY} decoded pages
   * are kept, so repeated prefilters do not reread the index. Callers must not close it.
   */
  public static BTreeSegmentReader cached(
      FileIO io, String directory, IndexSegment segment, LanceField column) {
    String key = directory + "#" + segment.uuid() + "#" + column.arrowType();
    synchronized (CACHE) {
      BTreeSegmentReader r = CACHE.get(key);
      if (r != null) {
        return r;
      }
    }
    BTreeSegmentReader fresh;
    try {
      fresh =
          new BTreeSegmentReader(
              segment.name(),
              kindOf(segment, column),
              column.arrowType(),
              io,
              directory,
              IndexInternals.proto(segment).getFilesList(),
              CACHE_ALLOCATOR,
              true,
              segment.listedIn());
    } catch (dev.lancelot.engine.LancelotException e) {
      throw segment.inContext(e);
    }
    synchronized (CACHE) {
      return CACHE.computeIfAbsent(key, k -> fresh);
    }
  }

  /**
   * Forgets every shared reader, so that the next query reopens the index files. Index files never
   * change once written; this is for files replaced out of band (e.g. restored from a backup).
   */
  public static void clearCache() {
    synchronized (CACHE) {
      CACHE.clear();
    }
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
          pageCache.put(chunk.get(j), values.get(j));
        }
        apply(conditions, pagesOf, chunk.get(j), values.get(j), out);
      }
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
        indexName,
        directory + "/" + file,
        listedIn == null ? reason : reason + " (index listed in " + listedIn + ")",
        cause);
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
