package dev.lancelot.engine.internal.index.vector.sq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.engine.vector.VectorException;
import org.junit.jupiter.api.Test;

class SqTest {
  @Test
  void boundsAndCodesAsLance() {
    // Lance's test_f32_sq8: values 0..15 → bounds [0, 15], code i * 17.
    float[] v = new float[16];
    for (int i = 0; i < 16; i++) {
      v[i] = i;
    }
    ScalarQuantizer sq = ScalarQuantizer.train(v, 1, 16, DistanceMetric.L2, SqBuildParams.of(1));
    assertThat(sq.start()).isEqualTo(0.0);
    assertThat(sq.end()).isEqualTo(15.0);
    byte[] codes = sq.encodeAll(v, 0, 1);
    for (int i = 0; i < 16; i++) {
      assertThat(codes[i] & 0xFF).isEqualTo(i * 17);
    }
  }

  @Test
  void codesTruncateTowardZeroAndSaturate() {
    ScalarQuantizer sq = ScalarQuantizer.of(1, 0.0, 1.0);
    assertThat(sq.encode(0.5f)).isEqualTo(127); // 127.5 truncated, not rounded
    assertThat(sq.encode(0.999f)).isEqualTo(254); // 254.745
    assertThat(sq.encode(1f)).isEqualTo(255);
    assertThat(sq.encode(7f)).isEqualTo(255);
    assertThat(sq.encode(-3f)).isEqualTo(0);
    assertThat(sq.encode(Float.NaN)).isEqualTo(0);
    assertThat(ScalarQuantizer.of(1, 2.0, 2.0).encode(5f)).isEqualTo(0);
  }

  @Test
  void distancesOnCodesScaledBackAsLance() {
    ScalarQuantizer sq = ScalarQuantizer.of(2, -1.0, 1.0);
    float[] rows = {-1, 1, 1, -1};
    byte[] codes = sq.encodeAll(rows, 0, 2); // (0, 255), (255, 0)
    SqStorage l2 = SqStorage.of(sq, codes, 2, DistanceMetric.L2);
    // query (1, 1) → codes (255, 255): row 0 differs by 255 in one dimension.
    float scale = 2f * 2f / 65025f;
    assertThat(l2.scorer(new float[] {1, 1}).score(0)).isEqualTo(65025f * scale);
    assertThat(l2.distanceBetween(0, 1)).isEqualTo(2 * 65025f * scale);
    SqStorage dot = SqStorage.of(sq, codes, 2, DistanceMetric.DOT);
    // Lance's dot on codes: 1 - Σ a·b (u8 products), then scaled.
    assertThat(dot.scorer(new float[] {1, 1}).score(0)).isEqualTo((1f - 255 * 255) * 4f / 65025f);
    assertThat(l2.metric()).isEqualTo(DistanceMetric.L2);
    assertThat(SqStorage.of(sq, codes, 2, DistanceMetric.COSINE).metric())
        .isEqualTo(DistanceMetric.L2);
  }

  @Test
  void scoringManyRowsAtOnceGivesTheDistancesOfOneAtATime() {
    int dim = 37;
    int rows = 19;
    java.util.Random r = new java.util.Random(5);
    float[] v = new float[rows * dim];
    for (int i = 0; i < v.length; i++) {
      v[i] = (float) r.nextGaussian();
    }
    ScalarQuantizer sq =
        ScalarQuantizer.train(v, rows, dim, DistanceMetric.L2, SqBuildParams.of(1));
    byte[] codes = sq.encodeAll(v, 0, rows);
    int[] nodes = {4, 18, 0, 7, 7, 12, 3, 9, 15};
    for (DistanceMetric metric : new DistanceMetric[] {DistanceMetric.L2, DistanceMetric.DOT}) {
      SqStorage storage = SqStorage.of(sq, codes, rows, metric);
      float[] fromNode = new float[nodes.length];
      storage.nodeScorer(6).score(nodes, nodes.length, fromNode);
      float[] between = new float[nodes.length - 2];
      storage.distancesBetween(6, nodes, 2, nodes.length - 2, between);
      for (int i = 0; i < nodes.length; i++) {
        float one = storage.distanceBetween(6, nodes[i]);
        assertThat(fromNode[i]).as("%s node scorer, row %d", metric, i).isEqualTo(one);
        assertThat(storage.nodeScorer(6).score(nodes[i])).isEqualTo(one);
        if (i >= 2) {
          assertThat(between[i - 2]).as("%s between, row %d", metric, i).isEqualTo(one);
        }
      }
    }
  }

  @Test
  void cosineTrainsBoundsOnUnitVectors() {
    float[] v = {30, 40, -3, 4};
    ScalarQuantizer sq = ScalarQuantizer.train(v, 2, 2, DistanceMetric.COSINE, SqBuildParams.of(1));
    assertThat(sq.start()).isEqualTo(-0.6000000238418579);
    assertThat(sq.end()).isEqualTo(0.800000011920929);
  }

  @Test
  void badInputs() {
    assertThatThrownBy(() -> new SqBuildParams(4, 256, 1))
        .isInstanceOf(VectorException.class)
        .hasMessage(
            "Cannot build SQ with num_bits=4: only 8-bit scalar quantization is implemented. Use num_bits=8.");
    assertThatThrownBy(
            () -> ScalarQuantizer.train(new float[0], 0, 4, DistanceMetric.L2, SqBuildParams.of(1)))
        .isInstanceOf(VectorException.class)
        .hasMessage(
            "Cannot train SQ: there are no rows to learn bounds from. Add rows before building the index.");
  }
}
