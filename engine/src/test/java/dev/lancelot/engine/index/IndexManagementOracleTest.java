package dev.lancelot.engine.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.CommitConflictException;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.index.scalar.BTreeBuildParams;
import dev.lancelot.engine.index.scalar.BTreeIndexBuilder;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.vector.DistanceMetric;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.WriteParams;

/**
 * Index management against lance-core 7.0.0, both directions: {@link IndexStatistics} reports what
 * lance-core's index statistics report (segments, indexed and unindexed fragments and rows) for
 * indexes either engine built, after appends and deletes; an index lancelot drops is gone for
 * lance-core, which still reads every row and uses the other indexes; an index lance-core drops is
 * gone for lancelot; bad names are refused, naming the indexes there are, and change nothing.
 */
@Tag("oracle")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IndexManagementOracleTest {
  private static final int DIM = 8;
  private static final VectorIndexSpec PQ =
      VectorIndexSpec.of(IndexType.IVF_PQ, DistanceMetric.L2)
          .withNumPartitions(2)
          .withNumSubVectors(2)
          .withSampleRate(64)
          .withMaxIters(5);
  private BufferAllocator allocator;

  @BeforeAll
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  void tearDown() {
    allocator.close();
  }

  /** 3,000 rows in three fragments, then one appended fragment of 500 and deletes on both sides. */
  private void write(Path dir, boolean lanceBuilds) {
    LanceOracle.write(allocator, dir, 0, 3000, DIM, 5, WriteParams.WriteMode.CREATE, 1000);
    if (lanceBuilds) {
      LanceOracle.createBTree(allocator, dir, "tenant_id");
      LanceOracle.createIvfPq(allocator, dir, "vector", 2, 2);
    } else {
      try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
        BTreeIndexBuilder.build(ds, BTreeBuildParams.of("tenant_id")).close();
      }
      try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
        VectorIndexes.create(ds, "vector", PQ).close();
      }
    }
    LanceOracle.write(allocator, dir, 3000, 500, DIM, 6, WriteParams.WriteMode.APPEND, 1000);
    try (Dataset ds = LanceOracle.open(allocator, dir)) {
      ds.delete("id % 7 = 3"); // in indexed and unindexed fragments
    }
  }

  @Test
  void statisticsAreLancesForIndexesEitherEngineBuilt(@TempDir Path dir) {
    for (boolean lanceBuilds : List.of(true, false)) {
      Path d = dir.resolve(lanceBuilds ? "lance" : "ours");
      write(d, lanceBuilds);
      try (dev.lancelot.engine.Dataset ours = dev.lancelot.engine.Dataset.open(d.toString());
          Dataset lance = LanceOracle.open(allocator, d)) {
        assertThat(new TreeSet<>(ours.indexes().names()))
            .isEqualTo(new TreeSet<>(lance.listIndexes()));
        for (String name : ours.indexes().names()) {
          IndexStatistics st = IndexStatistics.of(ours, name);
          Map<String, Object> theirs = lance.getIndexStatistics(name);
          assertThat(st.segments()).as(name).isEqualTo(num(theirs.get("num_indices")));
          assertThat(st.indexedFragments())
              .as(name)
              .isEqualTo(num(theirs.get("num_indexed_fragments")));
          assertThat(st.indexedRows()).as(name).isEqualTo(num(theirs.get("num_indexed_rows")));
          assertThat(st.unindexedFragments())
              .as(name)
              .isEqualTo(num(theirs.get("num_unindexed_fragments")));
          assertThat(st.unindexedRows()).as(name).isEqualTo(num(theirs.get("num_unindexed_rows")));
          // lance-core names the types in its own case ("BTree", "IVF_PQ").
          assertThat(String.valueOf(theirs.get("index_type")))
              .as(name)
              .isEqualToIgnoringCase(st.type().toString());
          assertThat(st.unindexedFragments()).isEqualTo(1);
          assertThat(st.indexedRows() + st.unindexedRows()).isEqualTo(ours.countRows());
        }
        IndexStatistics vector = IndexStatistics.of(ours, "vector_idx");
        assertThat(vector.columns()).containsExactly("vector");
        assertThat(vector.metric()).contains(DistanceMetric.L2);
        assertThat(vector.sizeBytes()).isPresent();
        assertThat(vector.sizeBytes().getAsLong()).isGreaterThan(0);
        assertThat(IndexStatistics.of(ours, "tenant_id_idx").metric()).isEmpty();
      }
    }
  }

  @Test
  void anIndexWeDropIsGoneForLanceWhichStillUsesTheOthers(@TempDir Path dir) {
    write(dir, true);
    float[] q = {1, 2, 3, 4, 5, 6, 7, 8};
    List<List<Object>> filteredBefore =
        LanceOracle.rows(allocator, dir, List.of("id"), "tenant_id = 3");
    List<Long> nearestBefore = LanceOracle.nearestIds(allocator, dir, q, 5, 1, null, false);
    long before;
    try (dev.lancelot.engine.Dataset ours = dev.lancelot.engine.Dataset.open(dir.toString())) {
      before = ours.version();
      try (dev.lancelot.engine.Dataset dropped = ours.dropIndex("tenant_id_idx")) {
        assertThat(dropped.version()).isEqualTo(before + 1);
        assertThat(dropped.indexes().names()).containsExactly("vector_idx");
      }
    }
    try (Dataset lance = LanceOracle.open(allocator, dir)) {
      assertThat(lance.version()).isEqualTo(before + 1);
      assertThat(lance.listIndexes()).containsExactly("vector_idx");
    }
    // The same rows without the BTree; the IVF_PQ index still answers (one probe: not exact).
    assertThat(LanceOracle.rows(allocator, dir, List.of("id"), "tenant_id = 3"))
        .isNotEmpty()
        .isEqualTo(filteredBefore);
    assertThat(LanceOracle.nearestIds(allocator, dir, q, 5, 1, null, false))
        .hasSize(5)
        .isEqualTo(nearestBefore);
  }

  @Test
  void anIndexLanceDropsIsGoneForUs(@TempDir Path dir) {
    write(dir, false);
    try (Dataset lance = LanceOracle.open(allocator, dir)) {
      lance.dropIndex("vector_idx");
    }
    try (dev.lancelot.engine.Dataset ours = dev.lancelot.engine.Dataset.open(dir.toString())) {
      assertThat(ours.indexes().names()).containsExactly("tenant_id_idx");
      assertThatThrownBy(() -> IndexStatistics.of(ours, "vector_idx"))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("has no index of that name")
          .hasMessageContaining("[tenant_id_idx]");
    }
  }

  @Test
  void badNamesAreRefusedAndConcurrentDropsOfOneIndexConflict(@TempDir Path dir) {
    write(dir, false);
    try (dev.lancelot.engine.Dataset a = dev.lancelot.engine.Dataset.open(dir.toString());
        dev.lancelot.engine.Dataset b = dev.lancelot.engine.Dataset.open(dir.toString())) {
      long version = a.version();
      assertThatThrownBy(() -> a.dropIndex("vector_idz"))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("Cannot drop index \"vector_idz\"")
          .hasMessageContaining("did you mean \"vector_idx\"");
      try (dev.lancelot.engine.Dataset latest = dev.lancelot.engine.Dataset.open(dir.toString())) {
        assertThat(latest.version()).isEqualTo(version);
      }
      a.dropIndex("vector_idx").close();
      // b read the same version: dropping the same index again conflicts; another index does not.
      assertThatThrownBy(() -> b.dropIndex("vector_idx"))
          .isInstanceOf(CommitConflictException.class);
      try (dev.lancelot.engine.Dataset dropped = b.dropIndex("tenant_id_idx")) {
        assertThat(dropped.version()).isEqualTo(version + 2);
        assertThat(dropped.indexes().names()).isEmpty();
      }
    }
    try (Dataset lance = LanceOracle.open(allocator, dir)) {
      assertThat(lance.listIndexes()).isEmpty();
      assertThat(lance.countRows()).isEqualTo(3500 - 500);
    }
  }

  private static long num(Object value) {
    return ((Number) value).longValue();
  }
}
