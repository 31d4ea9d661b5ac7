package dev.lancelot.engine.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.query.DistributedSearch;
import dev.lancelot.engine.io.FileIO;
import dev.lancelot.engine.testing.LanceOracle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.lance.WriteParams;

/** SPEC Q1: every parameter is validated before any data is read, with a clear message. */
@Tag("oracle")
class QueryValidationTest {
  static BufferAllocator allocator;
  static Path dir;

  @BeforeAll
  static void setUp() throws Exception {
    allocator = new RootAllocator();
    dir = Files.createTempDirectory("validation");
    LanceOracle.write(allocator, dir, 0, 200, 8, 1, WriteParams.WriteMode.CREATE, 1000);
  }

  @AfterAll
  static void tearDown() {
    allocator.close();
  }

  static float[] q(int dim) {
    float[] v = new float[dim];
    v[0] = 1;
    return v;
  }

  @Test
  void q1ParametersAreCheckedWhenTheQueryIsBuilt() {
    assertThatThrownBy(
            () -> VectorQuery.builder("vector").vector(q(8)).nprobes(4).minimumNprobes(2).build())
        .isInstanceOf(InvalidQueryException.class)
        .hasMessageContaining("nprobes cannot be combined with minimum_nprobes or maximum_nprobes");
    assertThatThrownBy(
            () ->
                VectorQuery.builder("vector")
                    .vector(q(8))
                    .minimumNprobes(8)
                    .maximumNprobes(2)
                    .build())
        .hasMessageContaining("minimum_nprobes (8) must not exceed maximum_nprobes (2)");
    assertThatThrownBy(() -> VectorQuery.builder("vector").vector(q(8)).refineFactor(0).build())
        .hasMessageContaining("refine_factor must be at least 1");
    assertThatThrownBy(() -> VectorQuery.builder("vector").vector(q(8)).k(0).build())
        .hasMessageContaining("k must be at least 1");
    assertThatThrownBy(() -> VectorQuery.builder("vector").vector(1f, Float.NaN).build())
        .hasMessageContaining("non-finite value (NaN) at position 1");
    assertThatThrownBy(() -> VectorQuery.builder("vector").build())
        .hasMessageContaining("no query vector given");
    assertThatThrownBy(() -> VectorQuery.builder("vector").vectors(q(8), q(4)).build())
        .hasMessageContaining("query vector 1 has 4 dimensions but query vector 0 has 8");
  }

  @Test
  void q1SchemaChecksHappenAtPlanningBeforeAnyDataIsRead() {
    try (Dataset ds = Dataset.open(dir.toString())) {
      FileIO io = DatasetInternals.context(ds).io();
      long before = io.stats().bytesRead();
      assertThatThrownBy(
              () -> DistributedSearch.plan(ds, VectorQuery.builder("vector").vector(q(5)).build()))
          .isInstanceOf(InvalidQueryException.class)
          .hasMessageContaining(
              "the query vector has 5 dimensions but the column holds 8-dimensional vectors");
      assertThatThrownBy(
              () ->
                  DistributedSearch.plan(ds, VectorQuery.builder("tenant_id").vector(q(8)).build()))
          .hasMessageContaining("\"tenant_id\": it is int32, not a vector column");
      assertThatThrownBy(
              () -> DistributedSearch.plan(ds, VectorQuery.builder("nope").vector(q(8)).build()))
          .hasMessageContaining("no such column");
      assertThatThrownBy(
              () ->
                  DistributedSearch.plan(
                      ds, VectorQuery.builder("vector").vector(q(8)).columns("id", "x").build()))
          .hasMessageContaining("Cannot return column \"x\"");
      assertThatThrownBy(
              () ->
                  DistributedSearch.plan(
                      ds,
                      VectorQuery.builder("vector").vector(q(8)).filter("tenant_id = ").build()))
          .hasMessageContaining("tenant_id = ");
      assertThatThrownBy(
              () ->
                  DistributedSearch.plan(
                      ds,
                      VectorQuery.builder("vector")
                          .vector(q(8))
                          .fastSearch(true)
                          .useIndex(false)
                          .build()))
          .hasMessageContaining("fast_search and use_index=false");
      assertThat(io.stats().bytesRead()).isEqualTo(before);
    }
  }

  @Test
  void queriesCanBeBuiltFromLanceStyleParameterMaps() {
    VectorQuery q =
        VectorQuery.fromMap(
            Map.of(
                "column",
                "vector",
                "q",
                List.of(1.0, 2.0, 3.0),
                "k",
                3,
                "metric",
                "cosine",
                "minimum_nprobes",
                2,
                "maximum_nprobes",
                8,
                "refine_factor",
                4,
                "ef",
                64,
                "filter",
                "tenant_id = 42",
                "prefilter",
                true));
    assertThat(q.k()).isEqualTo(3);
    assertThat(q.candidateK()).isEqualTo(12);
    assertThat(q.effectiveEf()).isEqualTo(64);
    assertThat(q.minimumNprobes()).isEqualTo(2);
    assertThat(q.maximumNprobes().getAsInt()).isEqualTo(8);
    assertThat(q.vector()).containsExactly(1f, 2f, 3f);
    assertThatThrownBy(
            () -> VectorQuery.fromMap(Map.of("column", "vector", "q", List.of(1.0), "nprobe", 3)))
        .hasMessageContaining("unknown parameter \"nprobe\"");
    assertThatThrownBy(
            () ->
                VectorQuery.fromMap(
                    Map.of(
                        "column", "vector", "q", List.of(1.0), "nprobes", 3, "minimum_nprobes", 1)))
        .hasMessageContaining("nprobes cannot be combined");
  }

  @Test
  void q5DefaultEfIsOneAndAHalfTimesTheCandidateBudget() {
    VectorQuery q = VectorQuery.builder("vector").vector(q(8)).k(3).refineFactor(4).build();
    assertThat(q.candidateK()).isEqualTo(12);
    assertThat(q.effectiveEf()).isEqualTo(18);
    assertThat(VectorQuery.builder("vector").vector(q(8)).k(10).build().effectiveEf())
        .isEqualTo(15);
  }
}
