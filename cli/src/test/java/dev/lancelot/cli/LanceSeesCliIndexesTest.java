package dev.lancelot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.testing.LanceOracle;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** lance-core 7.0.0 lists, describes and searches the indexes the commands build and optimize. */
@Tag("oracle")
class LanceSeesCliIndexesTest {
  @Test
  void lanceUsesIndexesBuiltAndOptimizedByTheTool(@TempDir Path dir) {
    Path ds = dir.resolve("ds");
    CliData.write(ds, 0, 2000, WriteMode.CREATE, 1000);
    assertThat(
            CliData.run(
                    "create-index",
                    ds.toString(),
                    "--column",
                    "vector",
                    "--type",
                    "IVF_PQ",
                    "--num-partitions",
                    "4",
                    "--num-sub-vectors",
                    "4",
                    "--max-iterations",
                    "10")
                .code())
        .isZero();
    assertThat(CliData.run("create-scalar-index", ds.toString(), "--column", "tenant_id").code())
        .isZero();
    CliData.write(ds, 2000, 500, WriteMode.APPEND, 1000);

    try (BufferAllocator allocator = new RootAllocator();
        org.lance.Dataset lance = LanceOracle.open(allocator, ds)) {
      assertThat(lance.listIndexes()).containsExactlyInAnyOrder("vector_idx", "tenant_id_idx");
      Map<String, Object> stats = lance.getIndexStatistics("vector_idx");
      assertThat(stats).containsEntry("index_type", "IVF_PQ");
      assertThat(((Number) stats.get("num_unindexed_rows")).longValue()).isEqualTo(500);
    }

    assertThat(CliData.run("optimize-indices", ds.toString()).code()).isZero();
    try (BufferAllocator allocator = new RootAllocator();
        org.lance.Dataset lance = LanceOracle.open(allocator, ds)) {
      for (String name : List.of("vector_idx", "tenant_id_idx")) {
        Map<String, Object> stats = lance.getIndexStatistics(name);
        assertThat(((Number) stats.get("num_unindexed_rows")).longValue()).as(name).isZero();
        assertThat(((Number) stats.get("num_indexed_rows")).longValue()).as(name).isEqualTo(2500);
      }
      assertThat(((Number) lance.getIndexStatistics("vector_idx").get("num_indices")).intValue())
          .isEqualTo(2);
    }
    // Lance's ANN search over both segments finds an appended row's own vector first.
    float[] q = vectorOf(ds, 2100);
    try (BufferAllocator allocator = new RootAllocator()) {
      List<LanceOracle.Hit> hits =
          LanceOracle.nearest(allocator, ds, q, 5, 4, 4, null, true, null, false);
      assertThat(hits).isNotEmpty();
      assertThat(hits.get(0).id()).isEqualTo(2100);
    }
  }

  private static float[] vectorOf(Path ds, long id) {
    try (BufferAllocator allocator = new RootAllocator()) {
      List<List<Object>> rows = LanceOracle.rows(allocator, ds, List.of("vector"), "id = " + id);
      List<?> v = (List<?>) rows.get(0).get(0);
      float[] out = new float[v.size()];
      for (int i = 0; i < out.length; i++) {
        out[i] = ((Number) v.get(i)).floatValue();
      }
      return out;
    }
  }
}
