package dev.lancelot.engine.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.ScanTask;
import dev.lancelot.engine.Scanner;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.expr.FilterParser;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.scalar.BTreeBuildParams;
import dev.lancelot.engine.index.scalar.BTreeIndexBuilder;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.internal.query.DistributedSearch;
import dev.lancelot.engine.internal.query.exec.UnitResult;
import dev.lancelot.engine.internal.query.plan.AnnUnit;
import dev.lancelot.engine.internal.query.plan.FlatUnit;
import dev.lancelot.engine.internal.query.plan.PrefilterSpec;
import dev.lancelot.engine.internal.query.plan.SearchPlan;
import dev.lancelot.engine.internal.query.plan.SearchUnit;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.ClusteredData;
import dev.lancelot.engine.vector.DistanceMetric;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A filter is parsed and bound once, where it is given (the scan, the vector query); the plan's
 * units and merge carry the bound predicate, and running them, also after the plan crossed Java
 * serialization as it does to Spark executors, never parses again and gives the same rows.
 */
class FiltersBindOnceTest {
  static final int DIM = 16;
  static BufferAllocator allocator;
  static Path dir;
  static float[][] queries;

  @BeforeAll
  static void setUp() throws Exception {
    allocator = new RootAllocator();
    dir = Files.createTempDirectory("bind-once");
    write(0, 2000, WriteMode.CREATE);
    try (Dataset ds = Dataset.open(dir.toString())) {
      VectorIndexes.create(
              ds,
              "vector",
              VectorIndexSpec.of(IndexType.IVF_PQ, DistanceMetric.L2)
                  .withNumPartitions(4)
                  .withNumSubVectors(4))
          .close();
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      BTreeIndexBuilder.build(ds, BTreeBuildParams.of("tenant_id")).close();
    }
    write(2000, 300, WriteMode.APPEND); // a fragment the index does not cover: a flat unit
    queries = ClusteredData.queries(4, DIM, 10, 5, 7);
  }

  static void write(long first, int rows, WriteMode mode) throws Exception {
    try (VectorSchemaRoot b = ClusteredData.generate(allocator, first, rows, DIM, 10, 5);
        ArrowReader r = ArrowStreams.readerOf(allocator, List.of(b))) {
      Dataset.write(dir.toString(), r, WriteOptions.of(mode).withMaxRowsPerFile(1000)).close();
    }
  }

  @AfterAll
  static void tearDown() {
    allocator.close();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "tenant_id < 5          | true", // answered by the BTree index
        "id % 3 = 1             | true", // answered by a prefilter scan
        "id % 3 = 1 AND id > 40 | false"
      }) // a postfilter in the merge
  void unitsCarryTheBoundFilterAndRunningThemNeverParses(String filter, boolean prefilter)
      throws Exception {
    try (Dataset ds = Dataset.open(dir.toString())) {
      VectorQuery q =
          VectorQuery.builder("vector")
              .vectors(queries)
              .k(10)
              .nprobes(2)
              .columns("id")
              .filter(filter)
              .prefilter(prefilter)
              .build();
      long before = FilterParser.parseCount();
      SearchPlan plan = DistributedSearch.plan(ds, q);
      assertThat(FilterParser.parseCount() - before).as("parses while planning").isEqualTo(1);
      assertThat(plan.units())
          .hasAtLeastOneElementOfType(AnnUnit.class)
          .hasAtLeastOneElementOfType(FlatUnit.class);
      for (SearchUnit u : plan.units()) {
        BoundPredicate carried =
            u instanceof AnnUnit a
                ? (a.prefilter() == null ? null : a.prefilter().filter())
                : ((FlatUnit) u).filter();
        assertThat(carried == null ? null : carried.sql())
            .as(u.id())
            .isEqualTo(prefilter ? filter : null);
      }
      if (prefilter) {
        assertThat(plan.annUnits().get(0).prefilter().source())
            .isEqualTo(
                filter.startsWith("tenant_id")
                    ? PrefilterSpec.Source.SCALAR_INDEX
                    : PrefilterSpec.Source.SCAN);
      } else {
        assertThat(plan.merge().postfilter().sql()).isEqualTo(filter);
      }

      SearchPlan shipped = javaRoundTrip(plan);
      before = FilterParser.parseCount();
      List<UnitResult> results = new ArrayList<>();
      for (SearchUnit u : shipped.units()) {
        results.add(DistributedSearch.runUnit(ds, shipped, u));
      }
      List<List<Object>> remote;
      try (VectorSearchResult r =
          DistributedSearch.finish(ds, shipped, results, System.nanoTime())) {
        remote = dev.lancelot.engine.testing.Rows.of(r.rows());
      }
      assertThat(FilterParser.parseCount() - before)
          .as("parses while running the shipped plan")
          .isZero();
      try (VectorSearchResult local = VectorSearch.search(ds, q)) {
        assertThat(remote).isEqualTo(dev.lancelot.engine.testing.Rows.of(local.rows()));
        assertThat(remote).isNotEmpty();
      }
    }
  }

  @Test
  void aScanParsesOnceWhateverTheNumberOfTasks() {
    try (Dataset ds = Dataset.open(dir.toString())) {
      long before = FilterParser.parseCount();
      Scanner scanner = ds.newScan().columns("id").filter("tenant_id = 3 OR id % 100 = 7");
      List<ScanTask> tasks = scanner.planTasks(250);
      assertThat(tasks).hasSizeGreaterThan(5);
      long rows = 0;
      for (ScanTask t : tasks) {
        try (CloseableIterator<VectorSchemaRoot> it = scanner.execute(t)) {
          while (it.hasNext()) {
            rows += it.next().getRowCount();
          }
        }
      }
      assertThat(FilterParser.parseCount() - before).isEqualTo(1);
      assertThat(rows).isPositive().isEqualTo(ds.countRows("tenant_id = 3 OR id % 100 = 7"));
    }
  }

  @Test
  void aFilterBoundToOtherFieldsIsRefused() {
    try (Dataset ds = Dataset.open(dir.toString())) {
      BoundPredicate other =
          BoundPredicate.bind(
              "id = 1", new Schema(List.of(Field.nullable("id", new ArrowType.Int(32, true)))));
      assertThatThrownBy(() -> ds.newScan().filter(other))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("with filter \"id = 1\": it was bound to the fields");
      assertThat(ds.newScan().filter(ds.bindFilter("id = 1")).countRows()).isEqualTo(1);
    }
  }

  static SearchPlan javaRoundTrip(SearchPlan plan) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(plan);
    }
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      return (SearchPlan) in.readObject();
    }
  }
}
