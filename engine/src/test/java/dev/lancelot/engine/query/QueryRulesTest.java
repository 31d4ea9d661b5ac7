package dev.lancelot.engine.query;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.Rows;
import dev.lancelot.engine.testing.StandardData;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SPEC rules on the engine API that need no vector index: Q9 deletions, Q10, Q12, Q14. */
class QueryRulesTest {
  static BufferAllocator allocator;

  @BeforeAll
  static void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  static void tearDown() {
    allocator.close();
  }

  /** 300 rows of dim 4; rows 100..199 all have the same vector (ties). */
  static Dataset create(Path dir) throws Exception {
    try (VectorSchemaRoot batch = StandardData.generate(allocator, 0, 300, 4, 3)) {
      Float4Vector values =
          (Float4Vector) ((FixedSizeListVector) batch.getVector("vector")).getDataVector();
      for (int r = 100; r < 200; r++) {
        for (int d = 0; d < 4; d++) {
          values.set(r * 4 + d, 5f);
        }
      }
      try (ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch))) {
        return Dataset.write(
            dir.toString(), reader, WriteOptions.of(WriteMode.CREATE).withMaxRowsPerFile(120));
      }
    }
  }

  static List<Long> ids(VectorSearchResult r) {
    int col = r.rows().getSchema().getFields().stream().map(Field::getName).toList().indexOf("id");
    return Rows.of(r.rows()).stream().map(row -> (Long) row.get(col)).toList();
  }

  @Test
  void q14TiesAreBrokenByRowAddressAndRunsRepeat(@TempDir Path tmp) throws Exception {
    try (Dataset ds = create(tmp.resolve("ds"))) {
      VectorQuery q =
          VectorQuery.builder("vector")
              .vector(5f, 5f, 5f, 5f)
              .k(7)
              .useIndex(false)
              .columns("id")
              .build();
      try (VectorSearchResult r = VectorSearch.search(ds, q)) {
        assertThat(ids(r)).containsExactly(100L, 101L, 102L, 103L, 104L, 105L, 106L);
      }
      for (int i = 0; i < 3; i++) {
        try (VectorSearchResult r = VectorSearch.search(ds, q)) {
          assertThat(ids(r)).containsExactly(100L, 101L, 102L, 103L, 104L, 105L, 106L);
        }
      }
    }
  }

  @Test
  void q9DeletedRowsNeverAppear(@TempDir Path tmp) throws Exception {
    try (Dataset created = create(tmp.resolve("ds"))) {
      Dataset ds = created.delete("id >= 100 AND id < 104");
      try (VectorSearchResult r =
          VectorSearch.search(
              ds,
              VectorQuery.builder("vector")
                  .vector(5f, 5f, 5f, 5f)
                  .k(3)
                  .useIndex(false)
                  .columns("id")
                  .build())) {
        assertThat(ids(r)).containsExactly(104L, 105L, 106L);
      }
    }
  }

  @Test
  void q10FastSearchWithoutAnIndexReturnsAnEmptyResultWithTheSearchSchema(@TempDir Path tmp)
      throws Exception {
    try (Dataset ds = create(tmp.resolve("ds"))) {
      VectorQuery q =
          VectorQuery.builder("vector")
              .vector(5f, 5f, 5f, 5f)
              .k(3)
              .fastSearch(true)
              .columns("id")
              .withRowId(true)
              .build();
      try (VectorSearchResult r = VectorSearch.search(ds, q)) {
        assertThat(r.rowCount()).isZero();
        assertThat(r.rows().getSchema().getFields())
            .extracting(Field::getName)
            .containsExactly("id", "_distance", "_rowid");
      }
      assertThat(VectorSearch.explain(ds, q))
          .isEqualTo(
              "EmptyResult: columns=[id, _distance, _rowid], reason=fast_search: no usable vector index on \"vector\", "
                  + "so the result is empty\n");
    }
  }

  @Test
  void q12ExplainOfAnExactSearchWithAPostfilter(@TempDir Path tmp) throws Exception {
    try (Dataset ds = create(tmp.resolve("ds"))) {
      VectorQuery q =
          VectorQuery.builder("vector")
              .vector(1f, 2f, 3f, 4f)
              .k(3)
              .useIndex(false)
              .metric("cosine")
              .filter("tenant_id = 4")
              .columns("id", "tenant_id")
              .build();
      assertThat(VectorSearch.explain(ds, q))
          .isEqualTo(
              """
          Take: columns=[id, tenant_id], rows=final results only
            Filter: filter=tenant_id = 4, stage=postfilter (applied to the top 3, never backfilled)
              TopK: k=3, metric=cosine, order=exact _distance then row address
                Union: inputs=3
                  FlatKnn: unit=flat-0, fragments=[0], k=3, metric=cosine, reason=use_index=false
                  FlatKnn: unit=flat-1, fragments=[1], k=3, metric=cosine, reason=use_index=false
                  FlatKnn: unit=flat-2, fragments=[2], k=3, metric=cosine, reason=use_index=false
          -- use_index=false: exact search over every fragment
          """);
      try (VectorSearchResult r = VectorSearch.search(ds, q)) {
        assertThat(r.analyze())
            .contains(
                "FlatKnn: unit=flat-0, fragments=[0], k=3, metric=cosine, "
                    + "reason=use_index=false | rows_scanned=120, distances_computed=120, candidates=3, time=");
        assertThat(r.analyze()).contains("-- rows returned: " + r.rowCount());
      }
    }
  }
}
