package dev.lancelot.cli;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentInfo;
import dev.lancelot.engine.index.IndexCatalog;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.scalar.BTreeIndexStatistics;
import dev.lancelot.engine.index.vector.VectorIndexDescription;
import dev.lancelot.engine.index.vector.VectorIndexes;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.roaringbitmap.RoaringBitmap;

/**
 * Statistics of one index of a dataset version as plain values (for JSON), and their human-readable
 * form. Shared by {@code info}, {@code create-index}, {@code create-scalar-index} and {@code
 * optimize-indices}.
 */
final class IndexReport {
  private IndexReport() {}

  /**
   * Name, type, column, segments and coverage of index {@code name}; vector indexes add metric,
   * dimension and partitions, BTree indexes nulls and pages. When the index files cannot be read,
   * the manifest's facts are given with an {@code error}.
   */
  static Map<String, Object> describe(Dataset ds, String name) {
    IndexCatalog catalog = ds.indexes();
    List<IndexSegment> segments = catalog.segments(name);
    IndexSegment first = segments.get(0);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", name);
    m.put("type", first.type().toString());
    m.put(
        "column",
        first.fieldIds().stream()
            .map(id -> ds.lanceSchema().fieldById(id).map(f -> f.name()).orElse("#" + id))
            .reduce((x, y) -> x + "," + y)
            .orElse("?"));
    try {
      if (first.type().isVector() && first.type().isSupported()) {
        VectorIndexDescription d = VectorIndexes.describe(ds, name);
        m.put("metric", d.metric().lanceName());
        m.put("dimension", d.dimension());
        m.put("partitions", d.numPartitions());
        List<Map<String, Object>> segs = new ArrayList<>();
        for (VectorIndexDescription.Segment s : d.segments()) {
          Map<String, Object> sm = segment(s.uuid().toString(), s.datasetVersion(), s.fragments());
          sm.put("vectors", s.storedVectors());
          segs.add(sm);
        }
        m.put("segments", segs);
      } else if (first.type() == IndexType.BTREE) {
        BTreeIndexStatistics st = BTreeIndexStatistics.of(ds, name);
        m.put("segments", plainSegments(segments));
        m.put("rows_in_index", st.rowsIndexed());
        m.put("null_rows", st.nullRows());
        m.put("pages", st.pages());
        m.put("page_size", st.pageSize());
      } else {
        m.put("segments", plainSegments(segments));
        m.put("details_type", first.detailsType());
      }
    } catch (RuntimeException e) {
      m.put("segments", plainSegments(segments));
      m.put("error", String.valueOf(e.getMessage()).replace('\n', ' '));
    }
    coverage(ds, catalog.indexedFragments(name), m);
    return m;
  }

  private static List<Map<String, Object>> plainSegments(List<IndexSegment> segments) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (IndexSegment s : segments) {
      out.add(segment(s.uuid().toString(), s.datasetVersion(), ids(s.fragments())));
    }
    return out;
  }

  private static Map<String, Object> segment(String uuid, long version, List<Long> fragments) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("uuid", uuid);
    m.put("dataset_version", version);
    m.put("fragments", fragments);
    return m;
  }

  private static void coverage(Dataset ds, RoaringBitmap indexed, Map<String, Object> m) {
    List<Long> indexedIds = new ArrayList<>();
    List<Long> unindexedIds = new ArrayList<>();
    long indexedRows = 0;
    long unindexedRows = 0;
    for (FragmentInfo f : ds.fragments()) {
      if (indexed.contains(Math.toIntExact(f.id()))) {
        indexedIds.add(f.id());
        indexedRows += f.rows();
      } else {
        unindexedIds.add(f.id());
        unindexedRows += f.rows();
      }
    }
    m.put("indexed_fragments", indexedIds);
    m.put("indexed_rows", indexedRows);
    m.put("unindexed_fragments", unindexedIds);
    m.put("unindexed_rows", unindexedRows);
  }

  static List<Long> ids(RoaringBitmap bitmap) {
    List<Long> out = new ArrayList<>();
    bitmap.forEach((int id) -> out.add(Integer.toUnsignedLong(id)));
    return out;
  }

  /** Two lines: what the index is, then its coverage. */
  @SuppressWarnings("unchecked")
  static void print(Map<String, Object> i, PrintStream out) {
    StringBuilder sb = new StringBuilder();
    sb.append("  ")
        .append(i.get("name"))
        .append("  ")
        .append(i.get("type"))
        .append(" on ")
        .append(i.get("column"));
    if (i.containsKey("metric")) {
      sb.append(", ")
          .append(i.get("metric"))
          .append(", dim ")
          .append(i.get("dimension"))
          .append(", ")
          .append(i.get("partitions"))
          .append(" partitions");
    }
    int segments = ((List<?>) i.get("segments")).size();
    sb.append(", ").append(segments).append(segments == 1 ? " segment" : " segments");
    if (i.containsKey("pages")) {
      int pages = (Integer) i.get("pages");
      sb.append(
          String.format(
              ", %,d %s, %,d nulls",
              pages, pages == 1 ? "page" : "pages", num(i.get("null_rows"))));
    }
    out.println(sb);
    List<Long> indexed = (List<Long>) i.get("indexed_fragments");
    List<Long> unindexed = (List<Long>) i.get("unindexed_fragments");
    out.printf(
        "      indexed %s (%,d rows); unindexed %s (%,d rows)%n",
        fragments(indexed),
        num(i.get("indexed_rows")),
        fragments(unindexed),
        num(i.get("unindexed_rows")));
    if (i.containsKey("error")) {
      out.println("      cannot read the index files: " + i.get("error"));
    }
  }

  /** {@code "3 fragments [0-2]"}, {@code "1 fragment [7]"}, {@code "0 fragments"}. */
  /** A count from a report map as a {@code long}, for {@code %d} conversions. */
  static long num(Object count) {
    return ((Number) count).longValue();
  }

  static String fragments(List<Long> ids) {
    if (ids.isEmpty()) {
      return "0 fragments";
    }
    return ids.size() + (ids.size() == 1 ? " fragment [" : " fragments [") + ranges(ids) + "]";
  }

  /** Sorted ids as ranges: {@code 0-2, 5, 7-9}. */
  static String ranges(List<Long> ids) {
    List<Long> sorted = new ArrayList<>(ids);
    sorted.sort(Long::compare);
    StringBuilder sb = new StringBuilder();
    int i = 0;
    while (i < sorted.size()) {
      int j = i;
      while (j + 1 < sorted.size() && sorted.get(j + 1) == sorted.get(j) + 1) {
        j++;
      }
      if (sb.length() > 0) {
        sb.append(", ");
      }
      sb.append(sorted.get(i));
      if (j > i) {
        sb.append('-').append(sorted.get(j));
      }
      i = j + 1;
    }
    return sb.toString();
  }
}
