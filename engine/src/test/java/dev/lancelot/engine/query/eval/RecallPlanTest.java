package dev.lancelot.engine.query.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.query.eval.RecallEvaluator.Scenario;
import dev.lancelot.engine.query.eval.RecallPlan.Cell;
import dev.lancelot.engine.query.eval.RecallPlan.QueryOutcome;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.vector.DistanceMetric;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.WriteParams;

/**
 * SPEC E1, E2: the engine plans a recall evaluation as cells (k × scenario × setting) a runner on
 * any platform executes; cells that need the same ground truth name the same key.
 */
@Tag("oracle")
class RecallPlanTest {
  @TempDir static Path tmp;
  static Path dir;

  @BeforeAll
  static void setUp() {
    dir = tmp.resolve("ds");
    try (var a = new RootAllocator()) {
      LanceOracle.write(a, dir, 0, 1200, 8, 2, WriteParams.WriteMode.CREATE, 600);
      try (Dataset ds = Dataset.open(dir.toString())) {
        VectorIndexes.create(
                ds,
                "vector",
                VectorIndexSpec.of(IndexType.IVF_FLAT, DistanceMetric.COSINE).withNumPartitions(4))
            .close();
      }
      LanceOracle.write(a, dir, 1200, 300, 8, 3, WriteParams.WriteMode.APPEND, 600);
    }
  }

  @Test
  void everyCellOfTheGridIsPlannedWithItsExactCounterpart() {
    try (Dataset ds = Dataset.open(dir.toString())) {
      RecallPlan plan =
          RecallPlan.plan(
              ds,
              new RecallPlan.Request(
                  "vector",
                  List.of(5, 10),
                  RecallPlan.parseGrid("nprobes=1,4;refine_factor=1,2"),
                  "tenant_id < 10",
                  null));
      assertThat(plan.version()).isEqualTo(ds.version());
      assertThat(plan.dimension()).isEqualTo(8);
      // per k: 4 settings in no filter, prefilter, unindexed, fast_search; one skipped cell
      assertThat(plan.cells()).hasSize(2 * (4 * 4 + 1));
      Cell skipped =
          plan.cells().stream()
              .filter(c -> c.scenario() == Scenario.SELECTIVE_PREFILTER)
              .findFirst()
              .orElseThrow();
      assertThat(skipped.measured()).isFalse();
      assertThat(skipped.note()).contains("give a selective filter");
      assertThatThrownBy(skipped::truth).isInstanceOf(IllegalStateException.class);

      Cell prefilter =
          plan.cells().stream()
              .filter(c -> c.scenario() == Scenario.PREFILTER && c.k() == 10)
              .findFirst()
              .orElseThrow();
      assertThat(prefilter.search().hasVectors()).isFalse();
      assertThat(prefilter.search().filter()).contains("tenant_id < 10");
      assertThat(prefilter.exact().useIndex()).isFalse();
      assertThat(prefilter.exact().hasVectors()).isFalse();
      assertThat(prefilter.metric()).isEqualTo("cosine"); // the index's metric
      assertThat(prefilter.truth())
          .isEqualTo(new RecallPlan.TruthKey("vector", "cosine", "tenant_id < 10", true, 10));
      // the four settings of a scenario share one ground truth; the no-filter cells another
      long truths =
          plan.cells().stream().filter(Cell::measured).map(Cell::truth).distinct().count();
      assertThat(truths).isEqualTo(4); // (no filter, prefilter) × k 5, 10; fast_search = no filter
      Cell fast =
          plan.cells().stream()
              .filter(c -> c.scenario() == Scenario.FAST_SEARCH && c.k() == 5)
              .findFirst()
              .orElseThrow();
      assertThat(fast.search().fastSearch()).isTrue();
      assertThat(fast.exact().fastSearch()).isFalse();
    }
  }

  @Test
  void cellsTravelAndSummarizeTheirQueries() throws Exception {
    try (Dataset ds = Dataset.open(dir.toString())) {
      RecallPlan plan =
          RecallPlan.plan(
              ds,
              new RecallPlan.Request(
                  "vector", List.of(4), List.of(java.util.Map.of()), null, null));
      Cell cell = plan.cells().get(0);
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
        out.writeObject(cell);
      }
      Cell back;
      try (ObjectInputStream in =
          new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
        back = (Cell) in.readObject();
      }
      assertThat(back.truth()).isEqualTo(cell.truth());
      QueryOutcome half =
          back.outcome(List.of(1L, 2L, 3L, 4L), List.of(1L, 2L, 9L, 8L), 2.0, 3, 40);
      QueryOutcome all = back.outcome(List.of(1L, 2L), List.of(2L, 1L), 1.0, 1, 20);
      QueryOutcome none = back.outcome(List.of(), List.of(), 3.0, 0, 0);
      assertThat(half.recall()).isEqualTo(0.5);
      assertThat(all.recall()).isEqualTo(1.0); // fewer than k exact rows: divided by 2
      assertThat(none.recall()).isEqualTo(1.0);
      RecallPlan.Summary s = back.summarize(List.of(half, all, none));
      assertThat(s.queries()).isEqualTo(3);
      assertThat(s.recall()).isEqualTo(2.5 / 3);
      assertThat(s.recallP5()).isEqualTo(0.5);
      assertThat(s.rowsPerQuery()).isEqualTo(2.0);
      assertThat(s.p50Millis()).isEqualTo(2.0);
      assertThat(s.p99Millis()).isEqualTo(3.0);
      assertThat(s.partitionsProbed()).isEqualTo(4.0 / 3);
      assertThat(s.distancesComputed()).isEqualTo(20.0);
      assertThat(RecallPlan.recallOf(Set.of(1L), Set.of(1L, 2L), 1)).isEqualTo(1.0);
    }
  }

  @Test
  void badInputFailsBeforeAnythingRunsAndNamesIt() {
    try (Dataset ds = Dataset.open(dir.toString())) {
      List<java.util.Map<String, Object>> grid = RecallPlan.parseGrid("");
      assertThatThrownBy(
              () ->
                  RecallPlan.plan(
                      ds, new RecallPlan.Request("vector", List.of(0), grid, null, null)))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("of at least 1");
      assertThatThrownBy(
              () ->
                  RecallPlan.plan(
                      ds, new RecallPlan.Request("vector", List.of(), grid, null, null)))
          .isInstanceOf(InvalidInputException.class);
      assertThatThrownBy(
              () ->
                  RecallPlan.plan(
                      ds, new RecallPlan.Request("vector", List.of(5), grid, "tenant_id <", null)))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("filter \"tenant_id <\" does not parse");
      assertThatThrownBy(
              () ->
                  RecallPlan.plan(
                      ds, new RecallPlan.Request("vector", List.of(5), grid, null, "nope = 1")))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("selective filter \"nope = 1\" does not apply");
      assertThatThrownBy(
              () ->
                  RecallPlan.plan(ds, new RecallPlan.Request("name", List.of(5), grid, null, null)))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("it is not a vector column");
      assertThatThrownBy(
              () ->
                  RecallPlan.plan(
                      ds,
                      new RecallPlan.Request(
                          "vector", List.of(5), RecallPlan.parseGrid("k=3"), null, null)))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("grid parameter \"k\"");
    }
  }
}
