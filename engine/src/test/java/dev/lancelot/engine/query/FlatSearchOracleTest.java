package dev.lancelot.engine.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.testing.Rows;
import dev.lancelot.engine.vector.DistanceMetric;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.lance.WriteParams;
import org.lance.index.DistanceType;

/**
 * Exact search against lance-core 7.0.0 (SPEC Q3 distances, Q7/Q8 filters, Q11 use_index=false, Q13
 * schema): identical rows and distances on a dataset with several fragments and deletions.
 */
@Tag("oracle")
class FlatSearchOracleTest {
  static BufferAllocator allocator;
  static Path dir;
  static final int DIM = 16;

  @BeforeAll
  static void setUp() throws Exception {
    allocator = new RootAllocator();
    dir = Files.createTempDirectory("flat-oracle");
    LanceOracle.write(allocator, dir, 0, 3000, DIM, 31, WriteParams.WriteMode.CREATE, 1200);
    LanceOracle.write(allocator, dir, 3000, 800, DIM, 31, WriteParams.WriteMode.APPEND, 1200);
    try (var ds = LanceOracle.open(allocator, dir)) {
      ds.delete("id % 9 = 4");
    }
  }

  @AfterAll
  static void tearDown() {
    allocator.close();
  }

  static float[] query(long seed) {
    Random r = new Random(seed);
    float[] q = new float[DIM];
    for (int i = 0; i < DIM; i++) {
      q[i] = (float) r.nextGaussian();
    }
    return q;
  }

  static List<LanceOracle.Hit> ours(VectorQuery q) {
    try (Dataset ds = Dataset.open(dir.toString());
        VectorSearchResult r = VectorSearch.search(ds, q)) {
      return Rows.of(r.rows()).stream()
          .map(row -> new LanceOracle.Hit((Long) row.get(0), (Float) row.get(1)))
          .toList();
    }
  }

  static void assertSame(List<LanceOracle.Hit> ours, List<LanceOracle.Hit> lance) {
    assertThat(ours)
        .extracting(LanceOracle.Hit::id)
        .containsExactlyElementsOf(lance.stream().map(LanceOracle.Hit::id).toList());
    for (int i = 0; i < ours.size(); i++) {
      assertThat(ours.get(i).distance()).isCloseTo(lance.get(i).distance(), within(1e-4f));
    }
  }

  @ParameterizedTest(name = "Q11 use_index=false {0}")
  @EnumSource(
      value = DistanceMetric.class,
      names = {"L2", "COSINE", "DOT"})
  void exactSearchEqualsLance(DistanceMetric metric) {
    DistanceType lanceMetric =
        switch (metric) {
          case L2 -> DistanceType.L2;
          case COSINE -> DistanceType.Cosine;
          default -> DistanceType.Dot;
        };
    for (long seed = 1; seed <= 5; seed++) {
      float[] q = query(seed);
      List<LanceOracle.Hit> lance =
          LanceOracle.nearest(allocator, dir, q, 10, null, null, lanceMetric, false, null, false);
      List<LanceOracle.Hit> us =
          ours(
              VectorQuery.builder("vector")
                  .vector(q)
                  .k(10)
                  .metric(metric)
                  .useIndex(false)
                  .columns("id")
                  .build());
      assertSame(us, lance);
    }
  }

  @Test
  void q8PostfilterRemovesRowsFromTheTopKAndNeverBackfills() {
    float[] q = query(7);
    String filter = "tenant_id >= 20";
    List<LanceOracle.Hit> lance =
        LanceOracle.nearest(allocator, dir, q, 10, null, null, null, false, filter, false);
    List<LanceOracle.Hit> us =
        ours(
            VectorQuery.builder("vector")
                .vector(q)
                .k(10)
                .useIndex(false)
                .filter(filter)
                .columns("id")
                .build());
    assertSame(us, lance);
    assertThat(us.size())
        .isLessThan(10); // most rows have small tenant ids: the nearest mostly fail
  }

  @Test
  void q7PrefilterReturnsKRowsFromTheQualifyingSet() {
    float[] q = query(8);
    String filter = "tenant_id >= 20";
    List<LanceOracle.Hit> lance =
        LanceOracle.nearest(allocator, dir, q, 10, null, null, null, false, filter, true);
    List<LanceOracle.Hit> us =
        ours(
            VectorQuery.builder("vector")
                .vector(q)
                .k(10)
                .useIndex(false)
                .filter(filter)
                .prefilter(true)
                .columns("id")
                .build());
    assertSame(us, lance);
    assertThat(us).hasSize(10);
  }

  @Test
  void q13OutputSchemaMatchesLance() {
    float[] q = query(9);
    try (Dataset ds = Dataset.open(dir.toString());
        VectorSearchResult r =
            VectorSearch.search(
                ds,
                VectorQuery.builder("vector")
                    .vector(q)
                    .k(3)
                    .useIndex(false)
                    .columns("id", "tenant_id")
                    .withRowId(true)
                    .build())) {
      assertThat(r.rows().getSchema().getFields())
          .extracting(Field::getName)
          .containsExactly("id", "tenant_id", "_distance", "_rowid");
      assertThat(r.rows().getSchema().findField("_distance").getType().toString())
          .contains("SINGLE");
      assertThat(r.rows().getSchema().findField("_rowid").getType().toString())
          .isEqualTo("Int(64, false)");
      assertThat(r.rowCount()).isEqualTo(3);
    }
    try (Dataset ds = Dataset.open(dir.toString());
        VectorSearchResult r =
            VectorSearch.search(
                ds, VectorQuery.builder("vector").vector(q).k(4).useIndex(false).build())) {
      assertThat(r.rows().getSchema().getFields())
          .extracting(Field::getName)
          .containsExactly("id", "tenant_id", "name", "vector", "_distance");
    }
  }

  @Test
  void q13BatchQueriesAreKeyedByQueryIndex() {
    float[] a = query(11);
    float[] b = query(12);
    try (Dataset ds = Dataset.open(dir.toString());
        VectorSearchResult r =
            VectorSearch.search(
                ds,
                VectorQuery.builder("vector")
                    .vectors(a, b)
                    .k(5)
                    .useIndex(false)
                    .columns("id")
                    .build())) {
      List<List<Object>> rows = Rows.of(r.rows());
      assertThat(r.rows().getSchema().getFields().get(0).getName()).isEqualTo("query_index");
      assertThat(rows).hasSize(10);
      assertThat(rows.subList(0, 5)).allMatch(row -> row.get(0).equals(0));
      assertThat(rows.subList(5, 10)).allMatch(row -> row.get(0).equals(1));
      List<Long> lanceA =
          LanceOracle.nearest(allocator, dir, a, 5, null, null, null, false, null, false).stream()
              .map(LanceOracle.Hit::id)
              .toList();
      List<Long> lanceB =
          LanceOracle.nearest(allocator, dir, b, 5, null, null, null, false, null, false).stream()
              .map(LanceOracle.Hit::id)
              .toList();
      assertThat(rows.subList(0, 5))
          .extracting(row -> (Long) row.get(1))
          .containsExactlyElementsOf(lanceA);
      assertThat(rows.subList(5, 10))
          .extracting(row -> (Long) row.get(1))
          .containsExactlyElementsOf(lanceB);
    }
  }
}
