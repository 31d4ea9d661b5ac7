package dev.lancelot.engine.internal.index.scalar.btree;

import dev.lancelot.engine.index.scalar.ScalarIndexException;
import dev.lancelot.engine.internal.expr.eval.ColumnKind;
import dev.lancelot.engine.internal.file.FileProjection;
import dev.lancelot.engine.internal.file.LanceBatchReader;
import dev.lancelot.engine.internal.file.LanceFileException;
import dev.lancelot.engine.internal.file.LanceFileReader;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.schema.LanceField;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The page lookup of one BTree segment ({@link BTreeFiles}): one {@link PageEntry} per page.
 * Immutable.
 */
public final class PageLookup {
  private final List<PageEntry> pages;
  private final Map<Integer, PageEntry> byPage = new HashMap<>();
  private final int batchSize;

  PageLookup(List<PageEntry> pages, int batchSize) {
    this.pages = List.copyOf(pages);
    this.batchSize = batchSize;
    for (PageEntry p : pages) {
      byPage.put(p.page(), p);
    }
  }

  /** The entry of page number {@code page}. */
  PageEntry entry(int page) {
    PageEntry e = byPage.get(page);
    if (e == null) {
      throw new IllegalArgumentException("no lookup entry for page " + page);
    }
    return e;
  }

  public List<PageEntry> pages() {
    return pages;
  }

  /**
   * Approximate heap size, for cache accounting: per page its entry, its slot in the by-page map
   * and its min and max bytes (string and binary columns).
   */
  public long estimatedBytes() {
    long total = 0;
    for (PageEntry p : pages) {
      total += ENTRY_BYTES;
      if (p.minBytes() != null) {
        total += PageValues.BYTES_ARRAY_OVERHEAD + p.minBytes().length;
      }
      if (p.maxBytes() != null) {
        total += PageValues.BYTES_ARRAY_OVERHEAD + p.maxBytes().length;
      }
    }
    return total;
  }

  /** Heap of one page's entry (a record of seven fields) and its slots in the list and map. */
  private static final int ENTRY_BYTES = 120;

  /** Rows per page of page_data.lance. */
  public int batchSize() {
    return batchSize;
  }

  public long nullCount() {
    long n = 0;
    for (PageEntry p : pages) {
      n += p.nullCount();
    }
    return n;
  }

  /**
   * Reads page_lookup.lance, checking its schema against the indexed column's type and refusing
   * layouts this engine does not know.
   */
  static PageLookup read(
      InputFile file,
      String indexName,
      ColumnKind kind,
      ArrowType columnType,
      BufferAllocator allocator) {
    try {
      LanceFileReader reader = LanceFileReader.open(file);
      checkSchema(reader, file.location(), indexName, columnType);
      int batchSize = batchSize(reader.schema().metadata(), file.location(), indexName);
      List<PageEntry> entries = new ArrayList<>();
      long rows = reader.numRows();
      if (rows > 0) {
        try (LanceBatchReader batches =
            reader.read(
                FileProjection.all(reader.schema()),
                0,
                rows,
                (int) Math.min(rows, 1 << 16),
                allocator)) {
          while (batches.loadNextBatch()) {
            decode(batches.getVectorSchemaRoot(), kind, entries, file.location(), indexName);
          }
        }
      }
      java.util.Set<Integer> seen = new java.util.HashSet<>();
      for (PageEntry e : entries) {
        if (!seen.add(e.page())) {
          throw ScalarIndexException.corrupt(
              indexName, file.location(), "page " + e.page() + " is listed twice", null);
        }
      }
      return new PageLookup(entries, batchSize);
    } catch (LanceFileException | IOException e) {
      throw ScalarIndexException.corrupt(
          indexName,
          file.location(),
          "it is not a readable Lance file (" + e.getMessage() + ")",
          e);
    }
  }

  private static void checkSchema(
      LanceFileReader reader, String location, String indexName, ArrowType columnType) {
    List<LanceField> fields = reader.schema().fields();
    List<String> names = fields.stream().map(LanceField::name).toList();
    if (!names.equals(
        List.of(BTreeFiles.MIN, BTreeFiles.MAX, BTreeFiles.NULL_COUNT, BTreeFiles.PAGE_IDX))) {
      throw ScalarIndexException.corrupt(
          indexName,
          location,
          "its columns are " + names + ", expected [min, max, null_count, page_idx]",
          null);
    }
    ArrowType uint32 = new ArrowType.Int(32, false);
    for (int i = 0; i < 4; i++) {
      ArrowType actual = fields.get(i).arrowType();
      ArrowType expected = i < 2 ? columnType : uint32;
      if (!actual.equals(expected)) {
        throw ScalarIndexException.corrupt(
            indexName,
            location,
            "column "
                + names.get(i)
                + " has type "
                + fields.get(i).logicalType()
                + " but "
                + (i < 2 ? "the indexed column has type " + expected : "uint32 is expected"),
            null);
      }
    }
  }

  private static int batchSize(Map<String, String> metadata, String location, String indexName) {
    String partitioned = metadata.get(BTreeFiles.RANGE_PARTITIONED_KEY);
    if (partitioned != null && !partitioned.equals("false")) {
      throw new ScalarIndexException(
          "Cannot read BTree index \""
              + indexName
              + "\" from "
              + location
              + ": it uses the range-partitioned layout ("
              + BTreeFiles.RANGE_PARTITIONED_KEY
              + "="
              + partitioned
              + "), which this engine does not read. Rebuild the index without range partitions.");
    }
    String value = metadata.get(BTreeFiles.BATCH_SIZE_KEY);
    if (value == null) {
      return BTreeFiles.DEFAULT_BATCH_SIZE; // as Lance: a missing key means the default
    }
    try {
      int size = Integer.parseInt(value.trim());
      if (size > 0) {
        return size;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw ScalarIndexException.corrupt(
        indexName,
        location,
        "its batch_size metadata is \"" + value + "\", not a positive number of rows",
        null);
  }

  private static void decode(
      VectorSchemaRoot root,
      ColumnKind kind,
      List<PageEntry> out,
      String location,
      String indexName) {
    int n = root.getRowCount();
    FieldVector min = root.getVector(0);
    FieldVector max = root.getVector(1);
    boolean keys = ValueCodec.usesKeys(kind);
    long[] minKeys = keys ? ValueCodec.keys(min, kind, n) : null;
    long[] maxKeys = keys ? ValueCodec.keys(max, kind, n) : null;
    byte[][] minBytes = keys ? null : ValueCodec.bytes(min, kind, n);
    byte[][] maxBytes = keys ? null : ValueCodec.bytes(max, kind, n);
    for (int i = 0; i < n; i++) {
      long nullCount = root.getVector(2).getDataBuffer().getInt((long) i << 2) & 0xFFFFFFFFL;
      long page = root.getVector(3).getDataBuffer().getInt((long) i << 2) & 0xFFFFFFFFL;
      if (page > Integer.MAX_VALUE || nullCount > Integer.MAX_VALUE) {
        throw ScalarIndexException.corrupt(
            indexName,
            location,
            "lookup row " + out.size() + " has page_idx " + page + " and null_count " + nullCount,
            null);
      }
      out.add(
          new PageEntry(
              (int) page,
              (int) nullCount,
              min.isNull(i),
              max.isNull(i),
              keys ? minKeys[i] : 0,
              keys ? maxKeys[i] : 0,
              keys ? null : minBytes[i],
              keys ? null : maxBytes[i]));
    }
  }
}
