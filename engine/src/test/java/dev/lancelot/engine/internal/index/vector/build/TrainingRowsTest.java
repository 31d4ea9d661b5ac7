package dev.lancelot.engine.internal.index.vector.build;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class TrainingRowsTest {
  private static long overlap(int[] a, int[] b) {
    return Arrays.stream(a).filter(x -> Arrays.binarySearch(b, x) >= 0).count();
  }

  @Test
  void pqRowsAreDrawnIndependentlyOfIvfRows() {
    int live = 100_000;
    ModelTrainer.TrainingRows rows =
        ModelTrainer.TrainingRows.draw(live, 4_096, 16_384, new SplittableRandom(7));
    assertThat(rows.ivf()).hasSize(4_096);
    assertThat(rows.pq()).hasSize(16_384);
    assertThat(rows.ivf()).isSorted().doesNotHaveDuplicates();
    assertThat(rows.pq()).isSorted().doesNotHaveDuplicates();
    assertThat(rows.ivf()[4_095]).isLessThan(live);
    assertThat(rows.pq()[16_383]).isLessThan(live);
    // Independent uniform draws share about 4,096 × 16,384 / 100,000 = 671 rows (sd about 24); a
    // PQ sample taken from IVF's rows, or IVF's from PQ's, would share all 4,096.
    assertThat(overlap(rows.ivf(), rows.pq())).isBetween(550L, 800L);
  }

  @Test
  void drawsAreSeeded() {
    ModelTrainer.TrainingRows a =
        ModelTrainer.TrainingRows.draw(50_000, 1_000, 2_000, new SplittableRandom(3));
    ModelTrainer.TrainingRows b =
        ModelTrainer.TrainingRows.draw(50_000, 1_000, 2_000, new SplittableRandom(3));
    ModelTrainer.TrainingRows c =
        ModelTrainer.TrainingRows.draw(50_000, 1_000, 2_000, new SplittableRandom(4));
    assertThat(a.ivf()).isEqualTo(b.ivf());
    assertThat(a.pq()).isEqualTo(b.pq());
    assertThat(a.pq()).isNotEqualTo(c.pq());
  }

  @Test
  void everyRowWhenThereAreNoMoreThanWanted() {
    ModelTrainer.TrainingRows rows =
        ModelTrainer.TrainingRows.draw(300, 300, 300, new SplittableRandom(1));
    int[] all = IntStream.range(0, 300).toArray();
    assertThat(rows.ivf()).isEqualTo(all);
    assertThat(rows.pq()).isEqualTo(all);
  }

  @Test
  void noPqRowsWithoutPq() {
    ModelTrainer.TrainingRows rows =
        ModelTrainer.TrainingRows.draw(10_000, 4_096, 0, new SplittableRandom(1));
    assertThat(rows.ivf()).hasSize(4_096);
    assertThat(rows.pq()).isEmpty();
  }
}
