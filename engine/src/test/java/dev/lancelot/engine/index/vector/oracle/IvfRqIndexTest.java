package dev.lancelot.engine.index.vector.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.CompactionOptions;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.Scanner;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.query.InvalidQueryException;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.query.VectorSearch;
import dev.lancelot.engine.query.VectorSearchResult;
import dev.lancelot.engine.testing.ClusteredData;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.vector.DistanceMetric;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.UInt8Vector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.WriteParams;
import org.lance.index.DistanceType;
import org.lance.index.IndexParams;
import org.lance.index.vector.VectorIndexParams;

/**
 * An IVF_RQ index that lance-core builds is listed with its type, and a search on its column says
 * that lancelot cannot use it (explain, log) and searches exactly instead, never silently; what
 * needs the index (fast_search, optimize, building one) is refused naming it; compaction leaves the
 * fragments it covers alone, so lance-core keeps using it.
 */
@Tag("oracle")
class IvfRqIndexTest {
  static final int DIM = 16;
  @TempDir static Path tmp;
  static BufferAllocator allocator;
  static Path dir;
  static float[][] queries;

  @BeforeAll
  static void setUp() {
    allocator = new RootAllocator();
    dir = tmp.resolve("rq");
    build(dir);
    queries = ClusteredData.queries(5, DIM, 8, 5, 17);
  }

  /** 2,000 rows indexed by lance-core's IVF_RQ, then three small unindexed fragments. */
  static void build(Path at) {
    ClusteredData.write(allocator, at, 0, 2000, DIM, 8, 5, WriteParams.WriteMode.CREATE, 500);
    try (org.lance.Dataset ds = LanceOracle.open(allocator, at)) {
      ds.createIndex(
          List.of("vector"),
          org.lance.index.IndexType.IVF_RQ,
          Optional.of("vector_idx"),
          IndexParams.builder()
              .setVectorIndexParams(VectorIndexParams.ivfRq(4, (byte) 1, DistanceType.L2))
              .build(),
          true);
    }
    ClusteredData.write(allocator, at, 2000, 300, DIM, 8, 6, WriteParams.WriteMode.APPEND, 100);
  }

  @AfterAll
  static void tearDown() {
    allocator.close();
  }

  @Test
  void theIndexIsListedWithItsType() {
    try (Dataset ds = Dataset.open(dir.toString())) {
      List<IndexSegment> segments = ds.indexes().segments("vector_idx");
      assertThat(segments).isNotEmpty();
      assertThat(segments.get(0).type()).isEqualTo(IndexType.IVF_RQ);
      assertThat(IndexType.IVF_RQ.isVector()).isTrue();
      assertThat(IndexType.IVF_RQ.isSupported()).isFalse();
    }
  }

  @Test
  void aSearchSaysItCannotUseTheIndexAndAnswersExactly() {
    try (Dataset ds = Dataset.open(dir.toString())) {
      for (float[] q : queries) {
        VectorQuery search = VectorQuery.builder("vector").vector(q).k(10).withRowId(true).build();
        assertThat(VectorSearch.explain(ds, search))
            .contains("vector_idx (IVF_RQ) cannot be searched by lancelot")
            .contains("falling back to flat search");
        VectorQuery exact = search.toBuilder().useIndex(false).build();
        assertThat(ids(ds, search)).isEqualTo(ids(ds, exact));
      }
      VectorQuery fast =
          VectorQuery.builder("vector").vector(queries[0]).k(10).fastSearch(true).build();
      assertThatThrownBy(() -> VectorSearch.search(ds, fast))
          .isInstanceOf(InvalidQueryException.class)
          .hasMessageContaining("vector_idx (IVF_RQ) cannot be searched by lancelot")
          .hasMessageContaining("Drop fast_search");
    }
  }

  @Test
  void whatNeedsTheIndexIsRefusedNamingIt() {
    try (Dataset ds = Dataset.open(dir.toString())) {
      long version = ds.version();
      assertThatThrownBy(() -> VectorIndexes.optimize(ds, "vector_idx", false))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("IVF_RQ index, which lancelot does not read or build yet");
      assertThatThrownBy(() -> VectorIndexSpec.of(IndexType.IVF_RQ, DistanceMetric.L2))
          .isInstanceOf(LancelotException.class)
          .hasMessageContaining("does not build it yet");
      assertThatThrownBy(() -> IndexType.parse("ivf_rq"))
          .isInstanceOf(LancelotException.class)
          .hasMessageContaining("does not build it yet");
      try (Dataset again = Dataset.open(dir.toString())) {
        assertThat(again.version()).isEqualTo(version); // nothing committed
      }
    }
  }

  @Test
  void compactionLeavesTheIndexedFragmentsAloneAndLanceStillUsesTheIndex() throws Exception {
    Path copy = tmp.resolve("rq-compacted");
    build(copy);
    List<Long> indexedBefore;
    try (Dataset ds = Dataset.open(copy.toString())) {
      indexedBefore = fragmentsOf(ds.indexes().segments("vector_idx"));
      var result = ds.compact(CompactionOptions.defaults());
      try (Dataset compacted = result.dataset()) {
        assertThat(result.committed()).isTrue(); // the three small unindexed fragments merged
        assertThat(result.indexSegmentsRemapped()).isZero();
        assertThat(fragmentsOf(compacted.indexes().segments("vector_idx")))
            .isEqualTo(indexedBefore);
        assertThat(compacted.fragments().stream().map(f -> f.id()).toList())
            .containsAll(indexedBefore);
        assertThat(compacted.countRows()).isEqualTo(2300);
      }
    }
    try (org.lance.Dataset lance = LanceOracle.open(allocator, copy)) {
      assertThat(lance.countRows()).isEqualTo(2300);
      assertThat(lance.listIndexes()).isNotEmpty();
    }
  }

  private static List<Long> fragmentsOf(List<IndexSegment> segments) {
    List<Long> out = new ArrayList<>();
    segments.forEach(s -> s.fragments().forEach((int f) -> out.add((long) f)));
    return out;
  }

  private static List<Long> ids(Dataset ds, VectorQuery q) {
    try (VectorSearchResult r = VectorSearch.search(ds, q)) {
      UInt8Vector ids = (UInt8Vector) r.rows().getVector(Scanner.ROW_ID);
      List<Long> out = new ArrayList<>();
      for (int i = 0; i < r.rowCount(); i++) {
        out.add(ids.get(i));
      }
      return out;
    }
  }
}
