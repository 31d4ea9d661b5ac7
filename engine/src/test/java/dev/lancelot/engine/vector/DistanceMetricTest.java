package dev.lancelot.engine.vector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** Hand-computed values for each metric and element type, and the error messages. */
class DistanceMetricTest {
  private static final float[] A = {1, 2, 3};
  private static final float[] B = {4, -5, 6};

  @Test
  void l2IsSquaredEuclidean() {
    // (1-4)² + (2+5)² + (3-6)² = 9 + 49 + 9
    assertThat(DistanceMetric.L2.distance(A, B)).isEqualTo(67f);
  }

  @Test
  void dotIsOneMinusTheProductAsLance() {
    // a·b = 4 - 10 + 18 = 12
    assertThat(DistanceMetric.DOT.distance(A, B)).isEqualTo(-11f);
  }

  @Test
  void cosineIsOneMinusCosineSimilarity() {
    // 12 / (sqrt(14) * sqrt(77))
    double expected = 1 - 12 / (Math.sqrt(14) * Math.sqrt(77));
    assertThat(DistanceMetric.COSINE.distance(A, B)).isCloseTo((float) expected, within(1e-6f));
    assertThat(DistanceMetric.COSINE.distance(A, A)).isCloseTo(0f, within(1e-6f));
    assertThat(DistanceMetric.COSINE.distance(A, new float[] {-1, -2, -3}))
        .isCloseTo(2f, within(1e-6f));
  }

  @Test
  void cosineWithAZeroVectorIsNaNAsInLance() {
    float[] zero = {0, 0, 0};
    assertThat(DistanceMetric.COSINE.distance(zero, B)).isNaN();
    assertThat(DistanceMetric.COSINE.distance(A, zero)).isNaN();
  }

  @Test
  void hammingCountsDifferingBits() {
    byte[] a = {(byte) 0b1010_1010, 0x0F, (byte) 0xFF};
    byte[] b = {(byte) 0b0101_1010, 0x0F, 0x00};
    assertThat(DistanceMetric.HAMMING.distance(a, 0, b, 0, 3)).isEqualTo(4f + 0 + 8);
  }

  @Test
  void float16MetricsMatchTheirFloatValues() {
    short[] a = Float16.fromFloats(A);
    short[] b = Float16.fromFloats(B);
    assertThat(DistanceMetric.L2.distance(a, 0, b, 0, 3)).isEqualTo(67f);
    assertThat(DistanceMetric.DOT.distance(a, 0, b, 0, 3)).isEqualTo(-11f);
    assertThat(DistanceMetric.COSINE.distance(a, 0, b, 0, 3))
        .isCloseTo(DistanceMetric.COSINE.distance(A, B), within(1e-6f));
  }

  @Test
  void bulkEqualsSingle() {
    float[] data = {4, -5, 6, 1, 2, 3, 0, 0, 0};
    float[] out = new float[4];
    for (DistanceMetric m :
        new DistanceMetric[] {DistanceMetric.L2, DistanceMetric.DOT, DistanceMetric.COSINE}) {
      m.distances(A, 0, data, 0, 3, 3, out, 1);
      for (int i = 0; i < 3; i++) {
        float single = m.distance(A, 0, data, i * 3, 3);
        if (Float.isNaN(single)) {
          assertThat(out[1 + i]).isNaN();
        } else {
          assertThat(out[1 + i]).as("%s row %d", m, i).isCloseTo(single, within(1e-6f));
        }
      }
    }
    short[] half = Float16.fromFloats(data);
    DistanceMetric.L2.distances(Float16.fromFloats(A), 0, half, 0, 3, 3, out, 0);
    assertThat(out[0]).isEqualTo(67f);
    assertThat(out[1]).isEqualTo(0f);
    byte[] bits = {1, 2, 3, 1, 2, 3};
    DistanceMetric.HAMMING.distances(new byte[] {1, 2, 0}, 0, bits, 0, 2, 3, out, 0);
    assertThat(out[0]).isEqualTo(2f);
  }

  @Test
  void parsesLanceNames() {
    assertThat(DistanceMetric.parse("L2")).isEqualTo(DistanceMetric.L2);
    assertThat(DistanceMetric.parse("euclidean")).isEqualTo(DistanceMetric.L2);
    assertThat(DistanceMetric.parse(" Cosine ")).isEqualTo(DistanceMetric.COSINE);
    assertThat(DistanceMetric.parse("dot")).isEqualTo(DistanceMetric.DOT);
    assertThat(DistanceMetric.parse("hamming")).isEqualTo(DistanceMetric.HAMMING);
    for (DistanceMetric m : DistanceMetric.values()) {
      assertThat(DistanceMetric.parse(m.lanceName())).isEqualTo(m);
      assertThat(DistanceMetric.fromProto(m.protoValue())).isEqualTo(m);
    }
    assertThatThrownBy(() -> DistanceMetric.parse("manhattan"))
        .isInstanceOf(VectorException.class)
        .hasMessage(
            "Cannot parse distance metric 'manhattan': it is not a metric Lance knows. "
                + "Use one of l2, cosine, dot, hamming.");
  }

  @Test
  void refusesMetricsThatDoNotFitTheElementType() {
    assertThatThrownBy(() -> DistanceMetric.HAMMING.distance(A, B))
        .isInstanceOf(VectorException.class)
        .hasMessage(
            "Cannot compute hamming distance on float32 vectors: Lance supports hamming only on"
                + " uint8 vectors. Use l2, cosine or dot for float vectors; hamming needs uint8 (binary) vectors.");
    assertThatThrownBy(() -> DistanceMetric.L2.distance(new byte[3], 0, new byte[3], 0, 3))
        .isInstanceOf(VectorException.class)
        .hasMessage(
            "Cannot compute l2 distance on uint8 vectors: Lance supports l2 only on float32/float16"
                + " vectors. Use hamming for uint8 (binary) vectors, or store the vectors as float32/float16.");
    assertThat(DistanceMetric.L2.supports(ElementType.FLOAT16)).isTrue();
    assertThat(DistanceMetric.HAMMING.supports(ElementType.UINT8)).isTrue();
  }

  @Test
  void normalizeMakesUnitVectorsAndLeavesZeroAlone() {
    float[] v = {3, 4, 0};
    DistanceMetric.normalize(v, 0, 3);
    assertThat(v).containsExactly(0.6f, 0.8f, 0f);
    float[] zero = {0, 0};
    DistanceMetric.normalize(zero, 0, 2);
    assertThat(zero).containsExactly(0f, 0f);
  }
}
