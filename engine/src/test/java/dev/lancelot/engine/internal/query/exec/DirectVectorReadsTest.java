package dev.lancelot.engine.internal.query.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.file.VectorPages;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.query.plan.FlatUnit;
import dev.lancelot.engine.internal.scan.FragmentReader;
import dev.lancelot.engine.internal.scan.RowAddress;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.engine.vector.ElementType;
import dev.lancelot.engine.vector.Float16;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Vectors read straight from the pages answer bit for bit as the Arrow path (decision D40): flat
 * units without a filter and with filters admitting no row, one row, a deleted row, a null vector,
 * some rows and every row, and the exact distances of given rows (the re-rank of ANN candidates,
 * Q6, Q9, and the rows of a small prefilter, Q7). For every layout the direct path reads — float32,
 * float16 and uint8 vectors, wide (plain full-zip rows) and narrow (mini-block) — on datasets
 * written by lancelot and by lance-core 7.0.0, with null vectors and deleted rows in both
 * fragments.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DirectVectorReadsTest {
  static final int ROWS = 3000;
  static final long SEED = 20261204L;
  static final String DELETED =
      "id = 200 OR (id >= 700 AND id < 760) OR (id >= 1790 AND id < 1810)";

  /**
   * Filters of flat units: none, nothing, one row, a deleted row, a null vector, some rows, every
   * row.
   */
  static final String[] FILTERS = {
    null,
    "id < 0",
    "id = 1234",
    "id = 200",
    "id = 15",
    "(id >= 300 AND id < 1000) OR id > 2500",
    "id >= 0"
  };

  /** A vector column's element type and dimension; {@code plain}: wide enough for full-zip rows. */
  record Layout(ElementType element, int dim, boolean plain) {
    String name() {
      return element.arrowName() + "x" + dim;
    }

    DistanceMetric[] metrics() {
      return element == ElementType.UINT8
          ? new DistanceMetric[] {DistanceMetric.HAMMING}
          : new DistanceMetric[] {DistanceMetric.L2, DistanceMetric.COSINE, DistanceMetric.DOT};
    }
  }

  static final Layout[] LAYOUTS = {
    new Layout(ElementType.FLOAT32, 67, true), // 268 bytes
    new Layout(ElementType.FLOAT32, 8, false), // 32 bytes: mini-block
    new Layout(ElementType.FLOAT16, 150, true), // 300 bytes
    new Layout(ElementType.FLOAT16, 24, false), // 48 bytes: mini-block
    new Layout(ElementType.UINT8, 300, true), // 300 bytes
    new Layout(ElementType.UINT8, 16, false) // 16 bytes: mini-block
  };

  BufferAllocator allocator;
  ExecutorService pool;
  Path dir;

  /** Which library writes the datasets. */
  String writer() {
    return "lancelot";
  }

  /** Writes {@code batch} as a dataset of two fragments and deletes {@link #DELETED}. */
  void write(VectorSchemaRoot batch, String location) throws Exception {
    try (ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch));
        Dataset ds =
            Dataset.write(
                    location, reader, WriteOptions.of(WriteMode.CREATE).withMaxRowsPerFile(1800))
                .delete(DELETED)) {
      assertThat(ds.fragments()).hasSize(2);
    }
  }

  String location(Layout layout) {
    return dir.resolve(writer() + "-" + layout.name()).toString();
  }

  @BeforeAll
  void write(@TempDir Path dir) throws Exception {
    this.dir = dir;
    allocator = new RootAllocator();
    pool = Executors.newFixedThreadPool(2);
    for (Layout layout : LAYOUTS) {
      try (VectorSchemaRoot batch = batch(layout)) {
        write(batch, location(layout));
      }
    }
  }

  /**
   * Rows {@code id, vector}: every 11th vector null (its elements zero); row 5's vector repeated at
   * every 500th row (ties).
   */
  VectorSchemaRoot batch(Layout layout) {
    ArrowType itemType =
        switch (layout.element()) {
          case FLOAT32 -> new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
          case FLOAT16 -> new ArrowType.FloatingPoint(FloatingPointPrecision.HALF);
          case UINT8 -> new ArrowType.Int(8, false);
        };
    Schema schema =
        new Schema(
            List.of(
                new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
                new Field(
                    "vector",
                    FieldType.nullable(new ArrowType.FixedSizeList(layout.dim())),
                    List.of(new Field("item", FieldType.nullable(itemType), null)))));
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    BigIntVector id = (BigIntVector) root.getVector("id");
    FixedSizeListVector vectors = (FixedSizeListVector) root.getVector("vector");
    id.allocateNew(ROWS);
    vectors.allocateNew();
    FieldVector items = vectors.getDataVector();
    int dim = layout.dim();
    Random random = new Random(SEED + dim);
    for (int r = 0; r < ROWS; r++) {
      id.set(r, r);
      boolean isNull = r % 11 == 4;
      if (isNull) {
        vectors.setNull(r);
      } else {
        vectors.setNotNull(r);
      }
      for (int d = 0; d < dim; d++) {
        int i = r * dim + d;
        int copy = r % 500 == 0 ? 5 * dim + d : -1;
        switch (layout.element()) {
          case FLOAT32 -> {
            Float4Vector v = (Float4Vector) items;
            v.setSafe(
                i, isNull ? 0f : copy >= 0 && r > 5 ? v.get(copy) : (float) random.nextGaussian());
          }
          case FLOAT16 -> {
            Float2Vector v = (Float2Vector) items;
            v.setSafe(
                i,
                isNull
                    ? (short) 0
                    : copy >= 0 && r > 5
                        ? v.get(copy)
                        : Float16.fromFloat((float) random.nextGaussian()));
          }
          case UINT8 -> {
            UInt1Vector v = (UInt1Vector) items;
            v.setSafe(i, isNull ? 0 : copy >= 0 && r > 5 ? v.get(copy) : random.nextInt(256));
          }
        }
      }
    }
    items.setValueCount(ROWS * dim);
    id.setValueCount(ROWS);
    vectors.setValueCount(ROWS);
    root.setRowCount(ROWS);
    return root;
  }

  @AfterAll
  void tearDown() {
    pool.shutdownNow();
    allocator.close();
  }

  static float[][] queries(Layout layout) {
    Random random = new Random(SEED + 7);
    float[][] q = new float[3][layout.dim()];
    for (float[] v : q) {
      for (int d = 0; d < v.length; d++) {
        v[d] =
            layout.element() == ElementType.UINT8
                ? random.nextInt(256)
                : (float) random.nextGaussian();
      }
    }
    return q;
  }

  /**
   * Checks every fragment's vectors are read directly (otherwise nothing would be compared), from
   * plain rows for wide vectors and through the page decoder for narrow ones.
   */
  static void assertDirect(Dataset ds, Layout layout) {
    for (DataFragment f : DatasetInternals.snapshot(ds).fragments()) {
      try (FragmentReader r = DatasetInternals.openFragment(ds, f)) {
        VectorPages pages = r.vectorPages(ds.field("vector"));
        assertThat(pages).as("%s, fragment %d", ds.location(), f.getId()).isNotNull();
        assertThat(pages.element()).isEqualTo(layout.element());
        assertThat(pages.allPlain())
            .as("%s, fragment %d: plain rows", ds.location(), f.getId())
            .isEqualTo(layout.plain());
      }
    }
  }

  List<UnitResult> search(Dataset ds, Layout layout, String filter, boolean direct) {
    List<Long> fragments = ds.fragments().stream().map(f -> f.id()).toList();
    float[][] queries = queries(layout);
    List<UnitResult> out = new ArrayList<>();
    for (DistanceMetric metric : layout.metrics()) {
      FlatUnit unit =
          new FlatUnit(
              "flat-0",
              fragments,
              metric,
              25,
              filter == null ? null : ds.bindFilter(filter),
              "test");
      out.add(FlatKnnExecutor.run(ds, unit, "vector", queries, null, null, null, 1, direct));
      out.add(FlatKnnExecutor.run(ds, unit, "vector", queries, -50f, 1e9f, pool, 3, direct));
    }
    return out;
  }

  @Test
  void flatUnitsReadDirectlyAnswerAsTheArrowScan() {
    for (Layout layout : LAYOUTS) {
      flatUnitsAnswerAsTheArrowScan(layout, location(layout));
    }
  }

  void flatUnitsAnswerAsTheArrowScan(Layout layout, String location) {
    try (Dataset ds = Dataset.open(location)) {
      assertDirect(ds, layout);
      for (String filter : FILTERS) {
        List<UnitResult> want = search(ds, layout, filter, false);
        List<UnitResult> got = search(ds, layout, filter, true);
        for (int i = 0; i < want.size(); i++) {
          String what = location + ", filter " + filter + ", search " + i;
          assertThat(got.get(i).stats().rowsScanned())
              .as(what)
              .isEqualTo(want.get(i).stats().rowsScanned());
          assertThat(got.get(i).stats().distancesComputed())
              .as(what)
              .isEqualTo(want.get(i).stats().distancesComputed());
          for (int q = 0; q < 3; q++) {
            Candidates a = want.get(i).perQuery().get(q);
            Candidates b = got.get(i).perQuery().get(q);
            assertThat(b.rowAddresses()).as(what).containsExactly(a.rowAddresses());
            assertThat(b.exact()).as(what).containsExactly(a.exact());
            for (long address : b.rowAddresses()) {
              long id = id(address);
              assertThat(id % 11).as("%s: null vectors never match", what).isNotEqualTo(4);
              assertThat(id == 200 || id >= 700 && id < 760 || id >= 1790 && id < 1810)
                  .as("%s: deleted rows never match", what)
                  .isFalse();
            }
          }
        }
        int expected =
            filter == null || filter.startsWith("(") || filter.equals("id >= 0")
                ? 25
                : filter.equals("id = 1234") ? 1 : 0;
        assertThat(got.get(0).perQuery().get(0).rowAddresses())
            .as("%s, filter %s", location, filter)
            .hasSize(expected);
      }
    }
  }

  /** The id of a row of either dataset (fragment 0 holds ids 0 … 1799, fragment 1 the rest). */
  static long id(long address) {
    return RowAddress.offset(address) + (RowAddress.fragment(address) == 0 ? 0 : 1800);
  }

  @Test
  void exactDistancesOfGivenRowsReadDirectlyEqualTheArrowTake() {
    for (Layout layout : LAYOUTS) {
      exactDistancesEqualTheArrowTake(layout, location(layout));
    }
  }

  void exactDistancesEqualTheArrowTake(Layout layout, String location) {
    try (Dataset ds = Dataset.open(location)) {
      assertDirect(ds, layout);
      List<Long> live = new ArrayList<>();
      for (long a : PrefilterMask.liveRows(ds, List.of(0L, 1L)).rowAddresses()) {
        live.add(a);
      }
      Random random = new Random(SEED);
      Collections.shuffle(live, random);
      // none, one row, a null vector, some rows in candidate (unsorted) order, every live row
      List<long[]> sets =
          List.of(
              new long[0],
              new long[] {live.get(0)},
              new long[] {RowAddress.of(1, 19), RowAddress.of(0, 15)},
              live.subList(0, 300).stream().mapToLong(Long::longValue).toArray(),
              live.stream().mapToLong(Long::longValue).toArray());
      for (DistanceMetric metric : layout.metrics()) {
        for (float[] q : queries(layout)) {
          for (long[] rows : sets) {
            float[] want = ExactDistances.of(ds, "vector", metric, q, rows, false);
            float[] got = ExactDistances.of(ds, "vector", metric, q, rows, true);
            assertThat(got)
                .as("%s, %s, %d rows", location, metric, rows.length)
                .containsExactly(want);
          }
        }
      }
    }
  }
}
