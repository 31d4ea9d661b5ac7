package dev.lancelot.engine.internal.file.arrow;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.internal.file.codec.FixedValues;
import dev.lancelot.engine.internal.file.codec.StructValues;
import dev.lancelot.engine.internal.file.codec.VarValues;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;

/** Packed struct rows into Arrow struct vectors: validity from levels, member selection. */
class PackedStructSinkTest {
  static final Field PACKED =
      new Field(
          "p",
          new FieldType(true, ArrowType.Struct.INSTANCE, null, Map.of("packed", "true")),
          List.of(
              new Field("a", FieldType.nullable(new ArrowType.Int(32, true)), null),
              new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));

  static StructValues rows() {
    byte[] a = new byte[12];
    java.nio.ByteBuffer.wrap(a)
        .order(java.nio.ByteOrder.LITTLE_ENDIAN)
        .putInt(1)
        .putInt(0)
        .putInt(3);
    byte[] s = "xz".getBytes(StandardCharsets.UTF_8);
    return new StructValues(
        List.of(FixedValues.wrap(a, 32, 3), VarValues.wrap(s, 2, new int[] {0, 1, 1, 2}, 3)), 3);
  }

  static List<Object> values(FieldVector v) {
    List<Object> out = new ArrayList<>();
    for (int i = 0; i < v.getValueCount(); i++) {
      out.add(v.isNull(i) ? null : String.valueOf(v.getObject(i)));
    }
    return out;
  }

  @Test
  void aNullStructHasNullMembers() {
    try (BufferAllocator allocator = new RootAllocator()) {
      FieldSink sink = Sinks.createField(PACKED, allocator, 2);
      assertThat(sink.numColumns()).isEqualTo(1);
      sink.column(0).append(rows(), 0, 3, new short[] {0, 1, 0}, 0);
      sink.column(0).appendNulls(1);
      try (FieldVector v = sink.finish()) {
        StructVector s = (StructVector) v;
        assertThat(s.getValueCount()).isEqualTo(4);
        assertThat(s.getNullCount()).isEqualTo(2);
        assertThat(values(s.getChild("a"))).containsExactly("1", null, "3", null);
        assertThat(values(s.getChild("s"))).containsExactly("x", null, "z", null);
        assertThat(values(s))
            .containsExactly("{\"a\":1,\"s\":\"x\"}", null, "{\"a\":3,\"s\":\"z\"}", null);
      }
    }
  }

  @Test
  void onlyTheSelectedMembersAreRead() {
    Field onlyS = new Field("p", PACKED.getFieldType(), List.of(PACKED.getChildren().get(1)));
    try (BufferAllocator allocator = new RootAllocator()) {
      FieldSink sink =
          Sinks.createField(onlyS, allocator, 3, PackedMembers.of(List.of(new int[] {1})));
      sink.column(0).append(rows(), 1, 2, null, 0);
      try (FieldVector v = sink.finish()) {
        StructVector s = (StructVector) v;
        assertThat(s.getChildrenFromFields()).hasSize(1);
        assertThat(values(s.getChild("s"))).containsExactly("", "z");
      }
    }
  }
}
