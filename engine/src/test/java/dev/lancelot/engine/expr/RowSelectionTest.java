package dev.lancelot.engine.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

class RowSelectionTest {
  @Test
  void layoutAndConversions() {
    long[] words = {0b1011L | (1L << 63), 1L, 0xFFL}; // rows 0,1,3,63,64 and 128..135
    RowSelection s = RowSelection.ofWords(words, 130);
    assertThat(s.rowCount()).isEqualTo(130);
    assertThat(s.toRowIndexes()).containsExactly(0, 1, 3, 63, 64, 128, 129);
    assertThat(s.cardinality()).isEqualTo(7);
    assertThat(s.toWords()).containsExactly(0b1011L | (1L << 63), 1L, 0b11L);
    assertThat(s.isSelected(63)).isTrue();
    assertThat(s.isSelected(2)).isFalse();
    assertThat(s.toRoaringBitmap()).isEqualTo(RoaringBitmap.bitmapOf(0, 1, 3, 63, 64, 128, 129));
    assertThat(s.toRoaringBitmap(1000))
        .isEqualTo(RoaringBitmap.bitmapOf(1000, 1001, 1003, 1063, 1064, 1128, 1129));
    assertThat(s.toBitSet().stream().toArray()).containsExactly(s.toRowIndexes());
    assertThat(s.toString()).isEqualTo("RowSelection[7 of 130: [0, 1, 3, 63, 64, 128, 129]]");
  }

  @Test
  void combine() {
    RowSelection a = RowSelection.ofWords(new long[] {0b0110}, 4);
    RowSelection b = RowSelection.ofWords(new long[] {0b0011}, 4);
    assertThat(a.and(b).toRowIndexes()).containsExactly(1);
    assertThat(a.or(b).toRowIndexes()).containsExactly(0, 1, 2);
    assertThat(RowSelection.all(70).cardinality()).isEqualTo(70);
    assertThat(RowSelection.none(70).isEmpty()).isTrue();
    assertThat(RowSelection.all(0).toRowIndexes()).isEmpty();
    assertThatThrownBy(() -> a.and(RowSelection.all(5)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RowSelection.ofWords(new long[2], 64))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> a.isSelected(4)).isInstanceOf(IndexOutOfBoundsException.class);
  }
}
