package dev.lancelot.engine.internal.file;

import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;

/**
 * Writes Java values into Arrow vectors of any nesting (tests only): null, numbers, String / byte[]
 * for strings and binary, List for lists and fixed-size lists, Map (field name to value) for
 * structs. Vectors grow as needed; call {@code setValueCount} on the top-level vector after.
 */
final class ArrowFill {
  private ArrowFill() {}

  static void set(FieldVector v, int i, Object value) {
    if (v instanceof ListVector l) {
      if (value == null) {
        l.setNull(i);
        return;
      }
      List<?> items = (List<?>) value;
      int start = l.startNewValue(i);
      for (int j = 0; j < items.size(); j++) {
        set((FieldVector) l.getDataVector(), start + j, items.get(j));
      }
      l.endValue(i, items.size());
      return;
    }
    if (v instanceof LargeListVector l) {
      if (value == null) {
        l.setNull(i);
        return;
      }
      List<?> items = (List<?>) value;
      long start = l.startNewValue(i);
      for (int j = 0; j < items.size(); j++) {
        set((FieldVector) l.getDataVector(), (int) start + j, items.get(j));
      }
      l.endValue(i, items.size());
      return;
    }
    if (v instanceof FixedSizeListVector f) {
      int dim = f.getListSize();
      FieldVector child = (FieldVector) f.getDataVector();
      while (f.getValueCapacity() <= i) {
        f.reAlloc();
      }
      if (value == null) {
        f.setNull(i);
        for (int j = 0; j < dim; j++) {
          set(child, i * dim + j, null);
        }
        return;
      }
      f.setNotNull(i);
      List<?> items = (List<?>) value;
      for (int j = 0; j < dim; j++) {
        set(child, i * dim + j, items.get(j));
      }
      return;
    }
    if (v instanceof StructVector s) {
      while (s.getValueCapacity() <= i) {
        s.reAlloc();
      }
      Map<?, ?> m = (Map<?, ?>) value;
      if (value == null) {
        s.setNull(i);
      } else {
        s.setIndexDefined(i);
      }
      for (FieldVector child : s.getChildrenFromFields()) {
        set(child, i, m == null ? null : m.get(child.getName()));
      }
      return;
    }
    if (value == null) {
      setNull(v, i);
      return;
    }
    if (v instanceof BaseVariableWidthVector b) {
      b.setSafe(i, bytes(value));
    } else if (v instanceof BaseLargeVariableWidthVector b) {
      b.setSafe(i, bytes(value));
    } else if (v instanceof BitVector b) {
      b.setSafe(i, ((Boolean) value) ? 1 : 0);
    } else if (v instanceof TinyIntVector t) {
      t.setSafe(i, ((Number) value).byteValue());
    } else if (v instanceof UInt1Vector t) {
      t.setSafe(i, ((Number) value).intValue());
    } else if (v instanceof SmallIntVector t) {
      t.setSafe(i, ((Number) value).shortValue());
    } else if (v instanceof IntVector t) {
      t.setSafe(i, ((Number) value).intValue());
    } else if (v instanceof UInt4Vector t) {
      t.setSafe(i, ((Number) value).intValue());
    } else if (v instanceof BigIntVector t) {
      t.setSafe(i, ((Number) value).longValue());
    } else if (v instanceof UInt8Vector t) {
      t.setSafe(i, ((Number) value).longValue());
    } else if (v instanceof Float2Vector t) {
      t.setSafeWithPossibleTruncate(i, ((Number) value).floatValue());
    } else if (v instanceof Float4Vector t) {
      t.setSafe(i, ((Number) value).floatValue());
    } else if (v instanceof Float8Vector t) {
      t.setSafe(i, ((Number) value).doubleValue());
    } else {
      throw new IllegalArgumentException("ArrowFill cannot write " + v.getClass().getSimpleName());
    }
  }

  private static void setNull(FieldVector v, int i) {
    if (v instanceof BaseVariableWidthVector b) {
      b.setNull(i);
    } else if (v instanceof BaseLargeVariableWidthVector b) {
      b.setNull(i);
    } else if (v instanceof org.apache.arrow.vector.BaseFixedWidthVector b) {
      while (b.getValueCapacity() <= i) {
        b.reAlloc();
      }
      b.setNull(i);
    } else {
      throw new IllegalArgumentException(
          "ArrowFill cannot write a null into " + v.getClass().getSimpleName());
    }
  }

  private static byte[] bytes(Object value) {
    return value instanceof byte[] b
        ? b
        : value.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }
}
