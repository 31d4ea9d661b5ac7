package dev.lancelot.engine.internal.index.vector.rq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Packing RaBitQ codes is the inverse of reading them: packed then read back transposed gives each
 * row's code bytes (full 32-row batches and the remainder), and carried rows split into codes and
 * factors and joined again are unchanged.
 */
class RqCodesTest {
  @ParameterizedTest
  @CsvSource({"0,2", "1,2", "31,2", "32,2", "33,6", "64,1", "95,3"})
  void packedCodesReadBackAsTheRows(int rows, int codeBytes) {
    byte[] rowMajor = new byte[rows * codeBytes];
    new Random(rows * 31L + codeBytes).nextBytes(rowMajor);
    byte[] packed = RqCodes.packed(rowMajor, rows, codeBytes);
    byte[] transposed = RqCodes.transposed(packed, rows, codeBytes, true);
    for (int row = 0; row < rows; row++) {
      for (int i = 0; i < codeBytes; i++) {
        assertThat(transposed[i * rows + row])
            .as("row %d byte %d", row, i)
            .isEqualTo(rowMajor[row * codeBytes + i]);
      }
    }
    if (rows >= 32) {
      // A full batch is really interleaved, not stored row after row.
      assertThat(packed).isNotEqualTo(rowMajor);
    }
  }

  @ParameterizedTest
  @CsvSource({"5,2,false", "40,2,true", "64,4,true"})
  void carriedRowsSplitAndJoinUnchanged(int rows, int codeBytes, boolean packed) {
    Random r = new Random(rows);
    byte[] codes = new byte[rows * codeBytes];
    r.nextBytes(codes);
    float[] add = new float[rows];
    float[] scale = new float[rows];
    for (int i = 0; i < rows; i++) {
      add[i] = (float) r.nextGaussian() * 10;
      scale[i] = -Math.abs((float) r.nextGaussian());
    }
    byte[] stored = packed ? RqCodes.packed(codes, rows, codeBytes) : codes;
    byte[] carried = RqCodes.rows(stored, add, scale, codeBytes, packed);
    assertThat(carried).hasSize(rows * (codeBytes + RqCodes.FACTOR_BYTES));
    RqCodes.Split split = RqCodes.split(carried, rows, codeBytes);
    assertThat(split.codes()).isEqualTo(codes);
    assertThat(split.add()).containsExactly(add);
    assertThat(split.scale()).containsExactly(scale);
  }

  @ParameterizedTest
  @CsvSource({"3,2"})
  void wrongLengthsAreRefused(int rows, int codeBytes) {
    assertThatThrownBy(() -> RqCodes.packed(new byte[rows * codeBytes + 1], rows, codeBytes))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("is not 3 × 2");
    assertThatThrownBy(() -> RqCodes.split(new byte[rows * codeBytes], rows, codeBytes))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("is not 3 × 10");
  }
}
