package dev.lancelot.engine.internal.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.lancelot.engine.internal.format.proto.RowIdProtos;
import dev.lancelot.engine.internal.format.proto.RowIdProtos.EncodedU64Array;
import dev.lancelot.engine.internal.format.proto.RowIdProtos.U64Segment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/** F7: every segment encoding of a row id sequence, and corrupt sequences refused. */
class RowIdSequenceTest {
  static byte[] sequence(U64Segment... segments) {
    var b = dev.lancelot.engine.internal.format.proto.RowIdProtos.RowIdSequence.newBuilder();
    for (U64Segment s : segments) {
      b.addSegments(s);
    }
    return b.build().toByteArray();
  }

  static ByteString little(int width, long... values) {
    ByteBuffer buf = ByteBuffer.allocate(values.length * width).order(ByteOrder.LITTLE_ENDIAN);
    for (long v : values) {
      if (width == 2) {
        buf.putShort((short) v);
      } else if (width == 4) {
        buf.putInt((int) v);
      } else {
        buf.putLong(v);
      }
    }
    return ByteString.copyFrom(buf.array());
  }

  @Test
  void decodesEverySegmentEncodingInOrder() {
    byte[] bytes =
        sequence(
            U64Segment.newBuilder()
                .setRange(U64Segment.Range.newBuilder().setStart(0).setEnd(3))
                .build(),
            U64Segment.newBuilder()
                .setRangeWithHoles(
                    U64Segment.RangeWithHoles.newBuilder()
                        .setStart(10)
                        .setEnd(15)
                        .setHoles(
                            EncodedU64Array.newBuilder()
                                .setU64Array(
                                    EncodedU64Array.U64Array.newBuilder()
                                        .setValues(little(8, 11, 13)))))
                .build(),
            // bits 0, 2 and 9 set (least significant bit first): 20, 22, 29
            U64Segment.newBuilder()
                .setRangeWithBitmap(
                    U64Segment.RangeWithBitmap.newBuilder()
                        .setStart(20)
                        .setEnd(30)
                        .setBitmap(ByteString.copyFrom(new byte[] {0b101, 0b10})))
                .build(),
            U64Segment.newBuilder()
                .setSortedArray(
                    EncodedU64Array.newBuilder()
                        .setU16Array(
                            EncodedU64Array.U16Array.newBuilder()
                                .setBase(100)
                                .setOffsets(little(2, 0, 7, 65535))))
                .build(),
            U64Segment.newBuilder()
                .setArray(
                    EncodedU64Array.newBuilder()
                        .setU32Array(
                            EncodedU64Array.U32Array.newBuilder()
                                .setBase(1L << 40)
                                .setOffsets(little(4, 5, 0xFFFFFFFFL, 1))))
                .build());
    RowIdSequence seq = RowIdSequence.parse(bytes, "test");
    long b = 1L << 40;
    long[] expected = {
      0, 1, 2, 10, 12, 14, 20, 22, 29, 100, 107, 100 + 65535, b + 5, b + 0xFFFFFFFFL, b + 1
    };
    assertThat(seq.toArray()).containsExactly(expected);
    assertThat(seq.length()).isEqualTo(expected.length);
    for (int i = 0; i < expected.length; i++) {
      assertThat(seq.get(i)).isEqualTo(expected[i]);
    }
    RowIdSequence.Segment unsorted = seq.segments().get(4);
    assertThat(unsorted.position(b + 1)).isEqualTo(2);
    assertThat(unsorted.position(b + 2)).isEqualTo(-1);
    assertThat(seq.segments().get(1).position(12)).isEqualTo(1);
    assertThat(seq.segments().get(1).position(11)).isEqualTo(-1);
    // what lancelot writes reads back the same
    assertThat(RowIdSequence.parse(seq.serialize(), "again").toArray()).containsExactly(expected);
  }

  @Test
  void corruptSequencesAreRefusedNamingTheirPlace() {
    assertThatThrownBy(() -> RowIdSequence.parse(new byte[] {(byte) 0xFF, 1}, "fragment 3"))
        .isInstanceOf(CorruptFileException.class)
        .hasMessageContaining("fragment 3");
    byte[] odd =
        sequence(
            U64Segment.newBuilder()
                .setArray(
                    EncodedU64Array.newBuilder()
                        .setU64Array(
                            EncodedU64Array.U64Array.newBuilder()
                                .setValues(ByteString.copyFrom(new byte[5]))))
                .build());
    assertThatThrownBy(() -> RowIdSequence.parse(odd, "fragment 4"))
        .isInstanceOf(CorruptFileException.class)
        .hasMessageContaining("not a multiple of 8");
    byte[] shortBitmap =
        sequence(
            U64Segment.newBuilder()
                .setRangeWithBitmap(
                    U64Segment.RangeWithBitmap.newBuilder()
                        .setStart(0)
                        .setEnd(100)
                        .setBitmap(ByteString.copyFrom(new byte[2])))
                .build());
    assertThatThrownBy(() -> RowIdSequence.parse(shortBitmap, "fragment 5"))
        .isInstanceOf(CorruptFileException.class)
        .hasMessageContaining("cannot cover");
    byte[] backwards =
        sequence(
            U64Segment.newBuilder()
                .setRange(U64Segment.Range.newBuilder().setStart(9).setEnd(3))
                .build());
    assertThatThrownBy(() -> RowIdSequence.parse(backwards, "fragment 6"))
        .isInstanceOf(CorruptFileException.class)
        .hasMessageContaining("invalid");
  }

  static RowIdProtos.U64Segment.SegmentCase encodedAs(long[] ids) throws Exception {
    byte[] bytes = RowIdSequence.of(ids).serialize();
    assertThat(RowIdSequence.parse(bytes, "test").toArray()).isEqualTo(ids);
    return RowIdProtos.RowIdSequence.parseFrom(bytes).getSegments(0).getSegmentCase();
  }

  @Test
  void ascendingIdsTakeTheSmallestEncodingAndReadBack() throws Exception {
    // a compacted fragment of rows 0..9999 with every 100th deleted: the range and its holes
    long[] fewHoles =
        java.util.stream.LongStream.range(0, 10_000).filter(i -> i % 100 != 3).toArray();
    assertThat(encodedAs(fewHoles)).isEqualTo(RowIdProtos.U64Segment.SegmentCase.RANGE_WITH_HOLES);
    // every 7th or every other row deleted: a bitmap of the range
    long[] seventh = java.util.stream.LongStream.range(0, 10_000).filter(i -> i % 7 != 3).toArray();
    assertThat(encodedAs(seventh)).isEqualTo(RowIdProtos.U64Segment.SegmentCase.RANGE_WITH_BITMAP);
    long[] half = java.util.stream.LongStream.range(0, 10_000).filter(i -> i % 2 == 0).toArray();
    assertThat(encodedAs(half)).isEqualTo(RowIdProtos.U64Segment.SegmentCase.RANGE_WITH_BITMAP);
    // far apart: the values
    long[] sparse = {3, 1L << 20, 1L << 33, 1L << 40};
    assertThat(encodedAs(sparse)).isEqualTo(RowIdProtos.U64Segment.SegmentCase.SORTED_ARRAY);
    // contiguous: one range; unordered: the values as they are
    assertThat(encodedAs(new long[] {5, 6, 7})).isEqualTo(RowIdProtos.U64Segment.SegmentCase.RANGE);
    assertThat(encodedAs(new long[] {9, 2, 4})).isEqualTo(RowIdProtos.U64Segment.SegmentCase.ARRAY);
    // the unsigned maximum (no exclusive end) stays a sorted array
    assertThat(encodedAs(new long[] {0, 1, -1L}))
        .isEqualTo(RowIdProtos.U64Segment.SegmentCase.SORTED_ARRAY);
  }
}
