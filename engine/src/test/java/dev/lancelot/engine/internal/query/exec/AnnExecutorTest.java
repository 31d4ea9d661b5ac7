package dev.lancelot.engine.internal.query.exec;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Lance's early-pruning rule that raises minimum_nprobes (SPEC Q4). */
class AnnExecutorTest {
  @Test
  void earlyPruningCountsPartitionsWithinAFactorOfTheBestCentroidDistance() {
    float[] sorted = {1f, 2f, 6.9f, 7f, 8f, 80f, 81f, 82f};
    assertThat(AnnExecutor.earlyPruning(sorted, 1)).as("k ≤ 1: factor 0.6").isZero();
    assertThat(AnnExecutor.earlyPruning(sorted, 2)).as("2 ≤ k ≤ 10: factor 7").isEqualTo(4);
    assertThat(AnnExecutor.earlyPruning(sorted, 10)).isEqualTo(4);
    assertThat(AnnExecutor.earlyPruning(sorted, 11)).as("k > 10: factor 81").isEqualTo(7);
    assertThat(AnnExecutor.earlyPruning(new float[0], 10)).isZero();
    assertThat(AnnExecutor.earlyPruning(new float[] {0f, 0f, 1f}, 10))
        .as("a zero best distance")
        .isEqualTo(2);
  }
}
