package dev.lancelot.engine.query.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.testing.LanceOracle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.WriteParams;

/** SPEC E1, E2: recall is measured per scenario and setting against exact search. */
@Tag("oracle")
class RecallEvaluatorTest {
  @Test
  void gridsExpandToTheCartesianProduct() {
    List<Map<String, Object>> grid = RecallEvaluator.parseGrid("nprobes=1,4;refine_factor=1,4");
    assertThat(grid).hasSize(4);
    assertThat(grid.get(1)).containsEntry("nprobes", 1).containsEntry("refine_factor", 4);
    assertThat(RecallEvaluator.parseGrid("")).hasSize(1);
    assertThatThrownBy(() -> RecallEvaluator.parseGrid("nprobes"))
        .hasMessageContaining("expected name=v1,v2");
    assertThatThrownBy(() -> RecallEvaluator.parseGrid("nprobes="))
        .hasMessageContaining("\"nprobes\" has an empty value");
    assertThatThrownBy(() -> RecallEvaluator.parseGrid("nprobes=1,"))
        .hasMessageContaining("empty value");
  }

  @Test
  void scenarioParametersAreTheRulesADistributedEvaluatorShares() {
    var o = new RecallEvaluator.Options("vector", 10, "tenant_id < 10", null);
    Map<String, Object> p =
        RecallEvaluator.scenarioParameters(
            o, RecallEvaluator.Scenario.PREFILTER, Map.of("refine_factor", 1, "nprobes", 4));
    assertThat(p)
        .containsEntry("filter", "tenant_id < 10")
        .containsEntry("prefilter", true)
        .containsEntry("nprobes", 4)
        .containsEntry("k", 10)
        .containsEntry("with_row_id", true)
        .doesNotContainKey("refine_factor")
        .doesNotContainKey("q");
    assertThat(
            RecallEvaluator.scenarioParameters(o, RecallEvaluator.Scenario.FAST_SEARCH, Map.of()))
        .containsEntry("fast_search", true)
        .doesNotContainKey("filter");
    assertThat(
            RecallEvaluator.skipReason(
                RecallEvaluator.Scenario.SELECTIVE_PREFILTER,
                o,
                new RecallEvaluator.IndexState("vector_idx", 0)))
        .contains("give a selective filter");
    assertThat(
            RecallEvaluator.skipReason(
                RecallEvaluator.Scenario.UNINDEXED,
                o,
                new RecallEvaluator.IndexState("vector_idx", 5)))
        .isNull();
    assertThatThrownBy(() -> RecallEvaluator.checkSetting(Map.of("k", 5), o))
        .hasMessageContaining("sets it itself");
    assertThatThrownBy(() -> RecallEvaluator.checkSetting(Map.of("nprobs", 5), o))
        .hasMessageContaining("nprobs");
    assertThat(RecallEvaluator.percentile(new double[] {1, 2, 3, 4}, 0.5)).isEqualTo(2.0);
    assertThat(RecallEvaluator.percentile(new double[] {1, 2, 3, 4}, 0.05)).isEqualTo(1.0);
    assertThat(RecallEvaluator.describe(Map.of())).isEqualTo("defaults");
  }

  @Test
  void fvecsRoundTripAndCorruptFiles(@TempDir Path tmp) throws Exception {
    float[][] v = {{1, 2, 3}, {4, 5, 6}};
    Path f = tmp.resolve("q.fvecs");
    QuerySets.writeFvecs(f, v);
    assertThat(QuerySets.readFvecs(f, 0)).isDeepEqualTo(v);
    assertThat(QuerySets.readFvecs(f, 1)).hasDimensions(1, 3);
    Files.write(f, new byte[] {3, 0, 0, 0, 1, 2});
    assertThatThrownBy(() -> QuerySets.readFvecs(f, 0))
        .isInstanceOf(LancelotException.class)
        .hasMessageContaining("declares dimension 3");
  }

  @Test
  void exactSearchHasRecallOneAndScenariosWithoutAnIndexAreExplained(@TempDir Path tmp) {
    Path dir = tmp.resolve("ds");
    try (var a = new RootAllocator()) {
      LanceOracle.write(a, dir, 0, 1500, 8, 2, WriteParams.WriteMode.CREATE, 600);
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      float[][] queries = QuerySets.fromColumn(ds, "vector", 5);
      List<RecallRow> rows =
          RecallEvaluator.evaluate(
              ds,
              queries,
              new RecallEvaluator.Options("vector", 10, "tenant_id < 10", "tenant_id = 50"),
              RecallEvaluator.parseGrid("use_index=false"));
      assertThat(rows)
          .extracting(RecallRow::scenario)
          .containsExactly(
              "no filter",
              "prefilter",
              "highly selective prefilter",
              "unindexed data present",
              "fast_search");
      assertThat(rows.get(0).recall()).isEqualTo(1.0);
      assertThat(rows.get(0).meanRows()).isEqualTo(10.0);
      assertThat(rows.get(1).recall()).isEqualTo(1.0);
      assertThat(rows.get(2).meanRows()).isLessThan(10.0); // few rows of tenant 50
      assertThat(rows.get(3).note()).contains("no vector index");
      assertThat(rows.get(4).note()).contains("no vector index");
    }
  }
}
