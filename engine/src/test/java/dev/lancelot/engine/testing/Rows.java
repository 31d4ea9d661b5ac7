package dev.lancelot.engine.testing;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.Text;

/**
 * Turns Arrow batches into plain Java rows (Long, Integer, String, List&lt;Float&gt;, ...) for
 * comparisons.
 */
public final class Rows {
  private Rows() {}

  public static List<List<Object>> of(VectorSchemaRoot root) {
    List<List<Object>> out = new ArrayList<>();
    for (int r = 0; r < root.getRowCount(); r++) {
      List<Object> row = new ArrayList<>();
      for (FieldVector v : root.getFieldVectors()) {
        row.add(normalize(v.getObject(r)));
      }
      out.add(row);
    }
    return out;
  }

  public static Object normalize(Object o) {
    if (o instanceof Text t) {
      return t.toString();
    }
    if (o instanceof List<?> list) {
      List<Object> out = new ArrayList<>(list.size());
      for (Object e : list) {
        out.add(normalize(e));
      }
      return out;
    }
    if (o instanceof byte[] b) {
      return java.util.HexFormat.of().formatHex(b);
    }
    return o;
  }
}
