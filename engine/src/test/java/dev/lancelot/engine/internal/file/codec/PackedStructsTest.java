package dev.lancelot.engine.internal.file.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.internal.file.proto.Encodings21Protos.CompressiveEncoding;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.Flat;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.PackedStruct;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.Variable;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.VariablePackedStruct;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Packed struct rows split into their members, on hand-built rows. */
class PackedStructsTest {
  static CompressiveEncoding flat(int bits) {
    return CompressiveEncoding.newBuilder()
        .setFlat(Flat.newBuilder().setBitsPerValue(bits))
        .build();
  }

  static CompressiveEncoding variable() {
    return CompressiveEncoding.newBuilder()
        .setVariable(Variable.newBuilder().setOffsets(flat(32)))
        .build();
  }

  /** {int32, string} members, as lance-core writes them in format 2.2. */
  static final CompressiveEncoding INT_AND_STRING =
      CompressiveEncoding.newBuilder()
          .setVariablePackedStruct(
              VariablePackedStruct.newBuilder()
                  .addFields(
                      VariablePackedStruct.FieldEncoding.newBuilder()
                          .setValue(flat(32))
                          .setBitsPerValue(32))
                  .addFields(
                      VariablePackedStruct.FieldEncoding.newBuilder()
                          .setValue(variable())
                          .setBitsPerLength(32)))
          .build();

  /** Rows stored back to back, as the full-zip reader hands them over. */
  static VarValues rows(byte[]... rows) {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    int[] offsets = new int[rows.length + 1];
    for (int i = 0; i < rows.length; i++) {
      all.writeBytes(rows[i]);
      offsets[i + 1] = all.size();
    }
    byte[] data = all.toByteArray();
    return VarValues.wrap(data, data.length, offsets, rows.length);
  }

  static byte[] row(int a, String s) {
    byte[] text = s.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(8 + text.length)
        .order(ByteOrder.LITTLE_ENDIAN)
        .putInt(a)
        .putInt(text.length)
        .put(text)
        .array();
  }

  static List<String> strings(VarValues v) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < v.count(); i++) {
      byte[] b = new byte[(int) (v.offset(i + 1) - v.offset(i))];
      v.data().get((int) v.offset(i), b);
      out.add(new String(b, StandardCharsets.UTF_8));
    }
    return out;
  }

  @Test
  void variableRowsSplitIntoMembersAndAnEmptyRowIntoPlaceholders() {
    VariablePerValueDecoder d = Codecs.variablePerValue(INT_AND_STRING);
    assertThat(d.expander()).as("no per-value shortcut for structs").isNull();
    StructValues v = (StructValues) d.decode(rows(row(5, "hi"), new byte[0], row(-1, "")));
    assertThat(v.count()).isEqualTo(3);
    FixedValues a = (FixedValues) v.members().get(0);
    assertThat(new long[] {a.getUnsigned(0), a.getUnsigned(1), (int) a.getUnsigned(2)})
        .containsExactly(5, 0, -1);
    assertThat(strings((VarValues) v.members().get(1))).containsExactly("hi", "", "");
    assertThat(Codecs.describe(INT_AND_STRING))
        .isEqualTo("VariablePackedStruct(Flat(32), Variable(Flat(32)))");
  }

  @Test
  void variableRowsThatDisagreeWithTheirMembersAreCorrupt() {
    VariablePerValueDecoder d = Codecs.variablePerValue(INT_AND_STRING);
    byte[] extra = ByteBuffer.allocate(9).order(ByteOrder.LITTLE_ENDIAN).putInt(1).array();
    assertThatThrownBy(() -> d.decode(rows(extra)))
        .isInstanceOf(DecodeException.class)
        .hasMessageContaining("holds 8 bytes of members");
    byte[] longer =
        ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(1).putInt(9).array();
    assertThatThrownBy(() -> d.decode(rows(longer)))
        .isInstanceOf(DecodeException.class)
        .hasMessageContaining("runs past its row's end");
    byte[] cut = new byte[3];
    assertThatThrownBy(() -> d.decode(rows(cut)))
        .isInstanceOf(DecodeException.class)
        .hasMessageContaining("ends inside a member");
  }

  @Test
  void fixedRowsSplitIntoMembers() {
    CompressiveEncoding e =
        CompressiveEncoding.newBuilder()
            .setPackedStruct(
                PackedStruct.newBuilder()
                    .addBitsPerValue(32)
                    .addBitsPerValue(16)
                    .setValues(flat(48)))
            .build();
    ByteBuffer chunk =
        ByteBuffer.allocate(12)
            .order(ByteOrder.LITTLE_ENDIAN)
            .putInt(7)
            .putShort((short) 8)
            .putInt(-9)
            .putShort((short) 10);
    StructValues v = (StructValues) Codecs.miniBlock(e).decode(List.of(chunk), 2);
    FixedValues a = (FixedValues) v.members().get(0);
    FixedValues b = (FixedValues) v.members().get(1);
    assertThat(new long[] {a.getUnsigned(0), (int) a.getUnsigned(1)}).containsExactly(7, -9);
    assertThat(new long[] {b.getUnsigned(0), b.getUnsigned(1)}).containsExactly(8, 10);
    assertThat(Codecs.describe(e)).isEqualTo("PackedStruct(Flat(48))");
  }

  @Test
  void membersThatAreNotWholeBytesAreRefused() {
    CompressiveEncoding e =
        CompressiveEncoding.newBuilder()
            .setPackedStruct(
                PackedStruct.newBuilder()
                    .addBitsPerValue(32)
                    .addBitsPerValue(1)
                    .setValues(flat(33)))
            .build();
    assertThatThrownBy(() -> Codecs.miniBlock(e))
        .isInstanceOf(DecodeException.class)
        .matches(x -> ((DecodeException) x).isUnsupported())
        .hasMessageContaining("PackedStruct(Flat(33)) with a member of 1 bits");
  }
}
