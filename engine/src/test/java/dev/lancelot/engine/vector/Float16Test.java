package dev.lancelot.engine.vector;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class Float16Test {
  @Test
  void knownEncodings() {
    assertThat(Float16.fromFloat(1f)).isEqualTo((short) 0x3C00);
    assertThat(Float16.fromFloat(-2f)).isEqualTo((short) 0xC000);
    assertThat(Float16.fromFloat(65504f)).isEqualTo((short) 0x7BFF);
    assertThat(Float16.fromFloat(65520f)).isEqualTo((short) 0x7C00); // rounds up to infinity
    assertThat(Float16.fromFloat(0x1p-24f)).isEqualTo((short) 0x0001); // smallest subnormal
    assertThat(Float16.fromFloat(0x1p-26f)).isEqualTo((short) 0x0000); // rounds to zero
    assertThat(Float16.fromFloat(1f / 3)).isEqualTo((short) 0x3555);
    assertThat(Float16.toFloat((short) 0x3555)).isEqualTo(0.33325195f);
    assertThat(Float.isNaN(Float16.toFloat(Float16.fromFloat(Float.NaN)))).isTrue();
    assertThat(Float16.toFloat((short) 0xFC00)).isEqualTo(Float.NEGATIVE_INFINITY);
  }

  @Test
  void everyHalfValueRoundTrips() {
    for (int bits = 0; bits < 1 << 16; bits++) {
      float f = Float16.toFloat((short) bits);
      if (!Float.isNaN(f)) {
        assertThat(Float16.fromFloat(f) & 0xFFFF).as("bits %04x", bits).isEqualTo(bits);
      }
    }
  }

  @Test
  void roundsHalfwayCasesToEven() {
    // 1 + 2^-11 lies exactly between 1 (even mantissa) and 1 + 2^-10: goes to 1.
    assertThat(Float16.fromFloat(1f + 0x1p-11f)).isEqualTo((short) 0x3C00);
    // 1 + 3 * 2^-11 lies between 1 + 2^-10 (odd) and 1 + 2^-9 (even): goes up.
    assertThat(Float16.fromFloat(1f + 3 * 0x1p-11f)).isEqualTo((short) 0x3C02);
  }
}
