package dev.lancelot.engine.internal.arrow;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;

/**
 * Gathering rows of lists and structs: the result holds the selected rows' values, nulls at every
 * level included, from one source or several, whatever the element type (a list of timestamps with
 * a time zone is one Arrow's per-value copy cannot copy).
 */
class ArrowGatherTest {
  private static final Field TS =
      new Field(
          "item", FieldType.nullable(new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")), null);

  /**
   * list<timestamp[us, UTC]>: row r is null when r % 5 == 4, else r % 4 items, item j null if 2.
   */
  private static ListVector timestamps(BufferAllocator a, int rows, long base) {
    Field f = new Field("ts", FieldType.nullable(ArrowType.List.INSTANCE), List.of(TS));
    ListVector v = (ListVector) f.createVector(a);
    v.allocateNew();
    TimeStampMicroTZVector items = (TimeStampMicroTZVector) v.getDataVector();
    int pos = 0;
    for (int r = 0; r < rows; r++) {
      if (r % 5 == 4) {
        v.setNull(r);
        continue;
      }
      v.startNewValue(r);
      for (int j = 0; j < r % 4; j++) {
        if (j == 2) {
          items.setNull(pos);
        } else {
          items.setSafe(pos, base + r * 10L + j);
        }
        pos++;
      }
      v.endValue(r, r % 4);
    }
    items.setValueCount(pos);
    v.setValueCount(rows);
    return v;
  }

  /** struct<id int, tags list<utf8>>; row r null when r % 7 == 6, tags null when r % 3 == 2. */
  private static StructVector structs(BufferAllocator a, int rows) {
    Field tags =
        new Field(
            "tags",
            FieldType.nullable(ArrowType.List.INSTANCE),
            List.of(new Field("item", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
    Field id = new Field("id", FieldType.nullable(new ArrowType.Int(32, true)), null);
    Field f = new Field("s", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(id, tags));
    StructVector v = (StructVector) f.createVector(a);
    v.allocateNew();
    IntVector ids = (IntVector) v.getChild("id");
    ListVector lists = (ListVector) v.getChild("tags");
    VarCharVector words = (VarCharVector) lists.getDataVector();
    int pos = 0;
    for (int r = 0; r < rows; r++) {
      if (r % 7 == 6) {
        v.setNull(r);
      } else {
        v.setIndexDefined(r);
      }
      ids.setSafe(r, r * 3);
      if (r % 3 == 2) {
        lists.setNull(r);
        continue;
      }
      lists.startNewValue(r);
      for (int j = 0; j < r % 3 + 1; j++) {
        words.setSafe(pos++, ("w" + r + "_" + j).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
      lists.endValue(r, r % 3 + 1);
    }
    words.setValueCount(pos);
    ids.setValueCount(rows);
    lists.setValueCount(rows);
    v.setValueCount(rows);
    return v;
  }

  private static List<Object> values(FieldVector v) {
    List<Object> out = new ArrayList<>();
    for (int i = 0; i < v.getValueCount(); i++) {
      Object o = v.getObject(i);
      out.add(o == null ? null : o.toString());
    }
    return out;
  }

  @Test
  void listsOfTimestampsWithAZoneAreGatheredFromOneSource() {
    try (BufferAllocator a = new RootAllocator();
        ListVector src = timestamps(a, 40, 1_000_000)) {
      int[] rows = {39, 0, 3, 4, 7, 7, 14, 22, 1, 35, 2};
      try (FieldVector out = ArrowGather.gather(src, rows, rows.length, a)) {
        List<Object> expected = new ArrayList<>();
        List<Object> all = values(src);
        for (int r : rows) {
          expected.add(all.get(r));
        }
        assertThat(values(out)).isEqualTo(expected);
        assertThat(out.getField()).isEqualTo(src.getField());
        assertThat(out.isNull(3)).isTrue(); // row 4
      }
      try (FieldVector none = ArrowGather.gather(src, new int[0], 0, a)) {
        assertThat(none.getValueCount()).isZero();
      }
    }
  }

  @Test
  void structsOfListsAreGatheredFromSeveralSources() {
    try (BufferAllocator a = new RootAllocator();
        StructVector s0 = structs(a, 30);
        StructVector s1 = structs(a, 20)) {
      int[] sourceOf = {1, 0, 0, 1, 1, 0, 1, 0};
      int[] rows = {19, 6, 2, 0, 13, 29, 5, 14};
      try (FieldVector out =
          ArrowGather.gather(new FieldVector[] {s0, s1}, sourceOf, rows, rows.length, a)) {
        List<List<Object>> sources = List.of(values(s0), values(s1));
        List<Object> expected = new ArrayList<>();
        for (int i = 0; i < rows.length; i++) {
          expected.add(sources.get(sourceOf[i]).get(rows[i]));
        }
        assertThat(values(out)).isEqualTo(expected);
        assertThat(out.isNull(1)).isTrue(); // row 6 of source 0
        assertThat(Arrays.asList(out.isNull(0), out.isNull(2))).containsExactly(false, false);
      }
    }
  }
}
