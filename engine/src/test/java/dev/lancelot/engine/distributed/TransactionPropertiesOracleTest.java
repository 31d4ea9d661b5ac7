package dev.lancelot.engine.distributed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentMetadata;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.testing.ClusteredData;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.ReadOptions;
import org.lance.Ref;
import org.lance.operation.Append;

/**
 * Transaction properties against lance-core 7.0.0, both ways: what a distributed commit records
 * Lance reads back with the version's transaction, and {@link DistributedWrite#newestCommitWith}
 * finds what Lance's commits record, newest first, across versions without the key.
 */
@Tag("oracle")
class TransactionPropertiesOracleTest {
  static final Configuration CONF = new Configuration();
  static BufferAllocator allocator;

  @BeforeAll
  static void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  static void tearDown() {
    allocator.close();
  }

  static Dataset commit(String location, long firstId, WriteMode mode, Map<String, String> props) {
    try (VectorSchemaRoot batch = ClusteredData.generate(allocator, firstId, 50, 8, 2, 1)) {
      var schema = dev.lancelot.engine.schema.LanceSchema.fromArrow(batch.getSchema());
      long read = 0;
      if (mode == WriteMode.APPEND) {
        try (Dataset latest = Dataset.open(location)) {
          schema = latest.lanceSchema();
          read = latest.version();
        }
      }
      List<FragmentMetadata> fragments;
      try (FragmentWriter w =
          DistributedWrite.newFragmentWriter(location, CONF, schema, WriteOptions.of(mode))) {
        w.write(batch);
        fragments = w.finish();
      }
      return DistributedWrite.commit(
          location, CONF, schema, fragments, WriteOptions.of(mode), read, props);
    }
  }

  @Test
  void lanceReadsThePropertiesLancelotCommitsAndTheNewestOneIsFound(@TempDir Path dir) {
    String location = dir.resolve("t.lance").toString();
    commit(location, 0, WriteMode.CREATE, Map.of()).close();
    commit(location, 50, WriteMode.APPEND, Map.of("stream.query", "q1", "stream.batch", "0"))
        .close();
    commit(location, 100, WriteMode.APPEND, Map.of("stream.query", "q2", "stream.batch", "7"))
        .close();
    commit(location, 150, WriteMode.APPEND, Map.of("stream.query", "q1", "stream.batch", "1"))
        .close();
    commit(location, 200, WriteMode.APPEND, Map.of()).close();

    try (org.lance.Dataset lance =
            org.lance.Dataset.open(allocator, location, new ReadOptions.Builder().build());
        org.lance.Dataset v4 = lance.checkout(Ref.ofMain(4))) {
      assertThat(v4.readTransaction().orElseThrow().transactionProperties())
          .contains(Map.of("stream.query", "q1", "stream.batch", "1"));
      assertThat(lance.countRows()).isEqualTo(250);
    }
    try (Dataset latest = Dataset.open(location)) {
      assertThat(latest.version()).isEqualTo(5);
      assertThat(DistributedWrite.newestCommitWith(latest, "stream.query", "q1"))
          .contains(Map.of("stream.query", "q1", "stream.batch", "1"));
      assertThat(DistributedWrite.newestCommitWith(latest, "stream.query", "q2"))
          .contains(Map.of("stream.query", "q2", "stream.batch", "7"));
      assertThat(DistributedWrite.newestCommitWith(latest, "stream.query", "q3")).isEmpty();
      try (Dataset v3 = latest.checkout(3)) {
        assertThat(DistributedWrite.newestCommitWith(v3, "stream.query", "q1"))
            .contains(Map.of("stream.query", "q1", "stream.batch", "0"));
      }
    }
  }

  @Test
  void propertiesLanceCommitsAreFound(@TempDir Path dir) {
    String location = dir.resolve("t.lance").toString();
    commit(location, 0, WriteMode.CREATE, Map.of()).close();
    try (org.lance.Dataset lance =
            org.lance.Dataset.open(allocator, location, new ReadOptions.Builder().build());
        VectorSchemaRoot batch = ClusteredData.generate(allocator, 50, 30, 8, 2, 1)) {
      List<org.lance.FragmentMetadata> fragments =
          org.lance.Fragment.create(
              location, allocator, batch, new org.lance.WriteParams.Builder().build());
      lance
          .newTransactionBuilder()
          .operation(Append.builder().fragments(fragments).build())
          .transactionProperties(Map.of("stream.query", "lance-q", "stream.batch", "41"))
          .build()
          .commit()
          .close();
    }
    commit(location, 80, WriteMode.APPEND, Map.of()).close();
    try (Dataset latest = Dataset.open(location)) {
      assertThat(latest.countRows()).isEqualTo(130);
      Optional<Map<String, String>> found =
          DistributedWrite.newestCommitWith(latest, "stream.query", "lance-q");
      assertThat(found).isPresent();
      assertThat(found.get()).containsEntry("stream.batch", "41");
    }
  }
}
