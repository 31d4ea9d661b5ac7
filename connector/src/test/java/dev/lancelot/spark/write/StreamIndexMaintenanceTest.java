package dev.lancelot.spark.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.InvalidInputException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StreamIndexMaintenanceTest {
  @Test
  void optionsAreReadIgnoringCaseAndBadValuesAreRefused() {
    assertThat(StreamIndexMaintenance.parse(Map.of())).isEqualTo(StreamIndexMaintenance.NONE);
    assertThat(StreamIndexMaintenance.parse(Map.of()).enabled()).isFalse();
    StreamIndexMaintenance m =
        StreamIndexMaintenance.parse(
            Map.of("OPTIMIZEINDEXEVERYBATCHES", " 3 ", "optimizeindexunindexedrows", "1000"));
    assertThat(m).isEqualTo(new StreamIndexMaintenance(3, 1000));
    assertThat(m.enabled()).isTrue();
    for (String bad : List.of("0", "-2", "x", "1.5", "")) {
      assertThatThrownBy(
              () -> StreamIndexMaintenance.parse(Map.of("optimizeIndexUnindexedRows", bad)))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("optimizeIndexUnindexedRows=\"" + bad + "\"")
          .hasMessageContaining("at least 1");
    }
  }

  @Test
  void batchesAreDueWhenTheStreamCrossesAMultiple() {
    StreamIndexMaintenance every3 = new StreamIndexMaintenance(3, 0);
    List<Long> due = new ArrayList<>();
    for (long epoch = 0; epoch < 10; epoch++) {
      if (every3.batchDue(epoch - 1, epoch)) {
        due.add(epoch);
      }
    }
    assertThat(due).containsExactly(2L, 5L, 8L);
    // batches without rows are not committed: a commit after a gap that crossed a multiple is due
    assertThat(every3.batchDue(1, 4)).isTrue();
    assertThat(every3.batchDue(2, 4)).isFalse();
    // a restarted query continues the schedule from its last committed batch
    assertThat(every3.batchDue(4, 5)).isTrue();
    assertThat(new StreamIndexMaintenance(0, 10).batchDue(0, 100)).isFalse();
  }
}
