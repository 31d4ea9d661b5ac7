package dev.lancelot.engine.internal.file;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.VarBinaryVector;

/** Comparable Java values of Arrow vectors (nulls as null; byte[] as lists). */
final class Values {
  private Values() {}

  static List<Object> of(FieldVector v) {
    List<Object> out = new ArrayList<>(v.getValueCount());
    for (int i = 0; i < v.getValueCount(); i++) {
      out.add(normalize(v.isNull(i) ? null : v.getObject(i)));
    }
    return out;
  }

  static Object normalize(Object o) {
    if (o instanceof byte[] b) {
      return "bytes:" + Arrays.toString(b);
    }
    if (o instanceof org.apache.arrow.vector.util.Text t) {
      return t.toString();
    }
    if (o instanceof java.util.Map<?, ?> m) {
      java.util.Map<Object, Object> out = new java.util.LinkedHashMap<>();
      m.forEach((k, v) -> out.put(k, normalize(v)));
      return out;
    }
    if (o instanceof List<?> l) {
      List<Object> out = new ArrayList<>(l.size());
      for (Object x : l) {
        out.add(normalize(x));
      }
      return out;
    }
    return o;
  }

  static boolean isBinary(FieldVector v) {
    return v instanceof VarBinaryVector || v instanceof LargeVarBinaryVector;
  }
}
