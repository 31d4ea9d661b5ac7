package dev.lancelot.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.Text;

/** Arrow rows as plain Java values for JSON and table output. */
final class JsonRows {
  static final ObjectMapper JSON =
      new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

  private JsonRows() {}

  static List<Map<String, Object>> rows(VectorSchemaRoot root, int from, int to) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (int r = from; r < to; r++) {
      Map<String, Object> row = new LinkedHashMap<>();
      for (FieldVector v : root.getFieldVectors()) {
        row.put(v.getName(), plain(v.getObject(r)));
      }
      out.add(row);
    }
    return out;
  }

  static Object plain(Object o) {
    if (o instanceof Text t) {
      return t.toString();
    }
    if (o instanceof List<?> list) {
      List<Object> out = new ArrayList<>(list.size());
      list.forEach(e -> out.add(plain(e)));
      return out;
    }
    if (o instanceof Map<?, ?> map) {
      Map<String, Object> out = new LinkedHashMap<>();
      map.forEach((k, v) -> out.put(String.valueOf(k), plain(v)));
      return out;
    }
    if (o instanceof byte[] b) {
      return java.util.HexFormat.of().formatHex(b);
    }
    if (o instanceof java.time.temporal.TemporalAccessor t) {
      return t.toString();
    }
    return o;
  }

  static String json(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (Exception e) {
      throw new IllegalStateException("Cannot render JSON: " + e.getMessage(), e);
    }
  }

  /** Text table: one header line, one line per row; long values shortened. */
  static String table(List<Map<String, Object>> rows) {
    if (rows.isEmpty()) {
      return "(no rows)\n";
    }
    List<String> cols = new ArrayList<>(rows.get(0).keySet());
    List<List<String>> cells = new ArrayList<>();
    int[] width = new int[cols.size()];
    for (int c = 0; c < cols.size(); c++) {
      width[c] = cols.get(c).length();
    }
    for (Map<String, Object> row : rows) {
      List<String> line = new ArrayList<>();
      for (int c = 0; c < cols.size(); c++) {
        String s = shorten(row.get(cols.get(c)));
        width[c] = Math.max(width[c], s.length());
        line.add(s);
      }
      cells.add(line);
    }
    StringBuilder sb = new StringBuilder();
    for (int c = 0; c < cols.size(); c++) {
      sb.append(String.format("%-" + width[c] + "s  ", cols.get(c)));
    }
    sb.append('\n');
    for (List<String> line : cells) {
      for (int c = 0; c < cols.size(); c++) {
        sb.append(String.format("%-" + width[c] + "s  ", line.get(c)));
      }
      sb.append('\n');
    }
    return sb.toString();
  }

  private static String shorten(Object v) {
    String s;
    if (v instanceof List<?> list && list.size() > 4) {
      s =
          "["
              + list.get(0)
              + ", "
              + list.get(1)
              + ", "
              + list.get(2)
              + ", ... ("
              + list.size()
              + ")]";
    } else {
      s = String.valueOf(v);
    }
    return s.length() > 60 ? s.substring(0, 57) + "..." : s;
  }
}
