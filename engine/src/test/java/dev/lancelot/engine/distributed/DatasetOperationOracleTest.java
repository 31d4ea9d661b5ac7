package dev.lancelot.engine.distributed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.CompactionOptions;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.ReadOptions;
import org.lance.Ref;
import org.lance.operation.Append;

/**
 * {@link Dataset#operation()} against lance-core 7.0.0, both ways: the operations of versions Lance
 * commits are named as Lance names them, and Lance reads the operations of lancelot's commits.
 */
@Tag("oracle")
class DatasetOperationOracleTest {
  static BufferAllocator allocator;

  @BeforeAll
  static void setUp() {
    allocator = new RootAllocator();
    TransactionPropertiesOracleTest.allocator = allocator;
  }

  @AfterAll
  static void tearDown() {
    allocator.close();
  }

  @Test
  void lancelotNamesTheOperationsOfLancesCommits(@TempDir Path dir) {
    String location = dir.resolve("t.lance").toString();
    TransactionPropertiesOracleTest.commit(location, 0, WriteMode.CREATE, Map.of()).close();
    try (org.lance.Dataset lance =
            org.lance.Dataset.open(allocator, location, new ReadOptions.Builder().build());
        VectorSchemaRoot batch =
            dev.lancelot.engine.testing.ClusteredData.generate(allocator, 50, 30, 8, 2, 1)) {
      List<org.lance.FragmentMetadata> fragments =
          org.lance.Fragment.create(
              location, allocator, batch, new org.lance.WriteParams.Builder().build());
      lance
          .newTransactionBuilder()
          .operation(Append.builder().fragments(fragments).build())
          .build()
          .commit()
          .close();
    }
    try (org.lance.Dataset lance =
        org.lance.Dataset.open(allocator, location, new ReadOptions.Builder().build())) {
      lance.delete("id < 10");
    }
    assertThat(operations(location)).containsExactly("overwrite", "append", "delete");
  }

  @Test
  void lanceReadsTheOperationsOfLancelotsCommits(@TempDir Path dir) {
    String location = dir.resolve("t.lance").toString();
    TransactionPropertiesOracleTest.commit(location, 0, WriteMode.CREATE, Map.of()).close();
    TransactionPropertiesOracleTest.commit(location, 50, WriteMode.APPEND, Map.of()).close();
    try (Dataset ds = Dataset.open(location);
        Dataset deleted = ds.delete("id < 10")) {
      assertThat(deleted.compact(CompactionOptions.defaults()).toString()).isNotEmpty();
    }
    List<String> ours = operations(location);
    assertThat(ours).containsExactly("overwrite", "append", "delete", "rewrite");
    try (org.lance.Dataset lance =
        org.lance.Dataset.open(allocator, location, new ReadOptions.Builder().build())) {
      for (int v = 1; v <= ours.size(); v++) {
        try (org.lance.Dataset at = lance.checkout(Ref.ofMain(v))) {
          String name = at.readTransaction().orElseThrow().operation().name();
          assertThat(name.toLowerCase(java.util.Locale.ROOT))
              .as("version %d", v)
              .isEqualTo(ours.get(v - 1));
        }
      }
    }
  }

  /** Each version's {@link Dataset#operation()}, oldest first. */
  private static List<String> operations(String location) {
    try (Dataset latest = Dataset.open(location)) {
      List<String> out = new java.util.ArrayList<>();
      for (long v = 1; v <= latest.version(); v++) {
        try (Dataset at = latest.checkout(v)) {
          out.add(at.operation());
        }
      }
      return out;
    }
  }
}
