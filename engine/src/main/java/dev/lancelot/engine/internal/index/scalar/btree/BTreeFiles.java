package dev.lancelot.engine.internal.index.scalar.btree;

import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The files of a BTree index segment in Lance 7's layout, under {@code _indices/<uuid>/}. Both are
 * ordinary Lance 2.1 files; {@code T} is the indexed column's Arrow type. Verified against files
 * lance-core 7.0.0 writes ({@code BTreeLance7LayoutTest}).
 *
 * <pre>
 * page_data.lance   one row per indexed row, in index order, cut into pages of batch_size rows
 *   [T nullable]          values   NULLs first, then ascending: integers and dates numerically,
 *                                  floats in IEEE total order (-NaN &lt; -inf &lt; ... &lt; -0.0 &lt; +0.0
 *                                  &lt; ... &lt; +inf &lt; NaN), strings and binaries byte-wise
 *   [uint64 not null]     ids      row address ((fragment &lt;&lt; 32) | offset) of the value;
 *                                  equal values are not ordered by address
 * page_lookup.lance one row per page of page_data, in page order
 *   [T nullable]          min         first value of the page (NULL when the page starts with NULLs)
 *   [T nullable]          max         last value of the page (NULL only for an all-NULL page)
 *   [uint32 not null]     null_count  NULL values in the page
 *   [uint32 not null]     page_idx    page number p: rows [p * batch_size, (p + 1) * batch_size)
 *                                     of page_data (the last page may be shorter)
 *   schema metadata   batch_size = "4096", range_partitioned = "false"
 * </pre>
 *
 * <p>Rows deleted before the build are absent; NULL values are indexed. The manifest records the
 * segment with {@code index_details} = {@code /lance.table.BTreeIndexDetails} (empty), {@code
 * index_version} 0 and {@code files} = [page_lookup.lance, page_data.lance] with their sizes. A
 * segment built by Lance 7 for some fragments only (a distributed build, committed with {@code
 * commit_existing_index_segments}) names its files {@code part_<first fragment <<
 * 32>_page_lookup.lance} and {@code part_<...>_page_data.lance}, same layout; the manifest's {@code
 * files} say which. {@code range_partitioned = "true"} marks a newer layout spreading one segment
 * over several page files, which this engine refuses.
 */
public final class BTreeFiles {
  public static final String LOOKUP_FILE = "page_lookup.lance";
  public static final String PAGES_FILE = "page_data.lance";
  public static final int DEFAULT_BATCH_SIZE = 4096;
  public static final String BATCH_SIZE_KEY = "batch_size";
  public static final String RANGE_PARTITIONED_KEY = "range_partitioned";

  public static final String MIN = "min";
  public static final String MAX = "max";
  public static final String NULL_COUNT = "null_count";
  public static final String PAGE_IDX = "page_idx";
  public static final String VALUES = "values";
  public static final String IDS = "ids";

  private static final ArrowType UINT32 = new ArrowType.Int(32, false);
  private static final ArrowType UINT64 = new ArrowType.Int(64, false);

  private BTreeFiles() {}

  /**
   * The lookup and page file names of a segment from the manifest's {@code files} (the one file
   * ending in {@code page_lookup.lance} and the one ending in {@code page_data.lance}); the default
   * names when the manifest lists none (Lance before 7).
   *
   * @throws dev.lancelot.engine.index.scalar.ScalarIndexException when the list is ambiguous
   */
  public static String[] fileNames(List<String> files, String indexName, String directory) {
    List<String> lookups = files.stream().filter(f -> f.endsWith(LOOKUP_FILE)).toList();
    List<String> pages = files.stream().filter(f -> f.endsWith(PAGES_FILE)).toList();
    if (lookups.isEmpty() && pages.isEmpty()) {
      return new String[] {LOOKUP_FILE, PAGES_FILE};
    }
    if (lookups.size() != 1 || pages.size() != 1) {
      throw new dev.lancelot.engine.index.scalar.ScalarIndexException(
          "Cannot read BTree index \""
              + indexName
              + "\" in "
              + directory
              + ": the manifest lists page lookup files "
              + lookups
              + " and page files "
              + pages
              + ", not one of each (an unmerged distributed build?). Rebuild the index, or merge it with Lance.");
    }
    return new String[] {lookups.get(0), pages.get(0)};
  }

  /** Schema of page_lookup.lance for values of {@code valueType}, with its metadata. */
  public static Schema lookupSchema(ArrowType valueType, int batchSize) {
    return new Schema(
        List.of(
            new Field(MIN, FieldType.nullable(valueType), null),
            new Field(MAX, FieldType.nullable(valueType), null),
            new Field(NULL_COUNT, FieldType.notNullable(UINT32), null),
            new Field(PAGE_IDX, FieldType.notNullable(UINT32), null)),
        Map.of(BATCH_SIZE_KEY, Integer.toString(batchSize), RANGE_PARTITIONED_KEY, "false"));
  }

  /** Schema of page_data.lance for values of {@code valueType}. */
  public static Schema pagesSchema(ArrowType valueType) {
    return new Schema(
        List.of(
            new Field(VALUES, FieldType.nullable(valueType), null),
            new Field(IDS, FieldType.notNullable(UINT64), null)));
  }
}
