package dev.lancelot.engine.query.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.query.plan.FlatUnit;
import dev.lancelot.engine.scan.FragmentReader;
import dev.lancelot.engine.scan.RowAddress;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.testing.StandardData;
import dev.lancelot.engine.vector.DistanceMetric;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.WriteParams;

/**
 * Vectors read straight from page bytes answer bit for bit as the Arrow path (decision D38):
 * prefiltered flat units (filters admitting no row, one row, a deleted row, a null vector, some
 * rows and every row) and the exact distances of given rows (the re-rank of ANN candidates, Q6, Q9,
 * and the rows of a small prefilter, Q7), on datasets written by lancelot and by lance-core 7.0.0,
 * with null vectors and deleted rows in both fragments.
 */
@Tag("oracle")
class DirectVectorReadsTest {
  static final int DIM = 67; // 268-byte vectors: full-zip pages in both writers
  static final int ROWS = 3000;
  static final long SEED = 20261204L;
  static final String DELETED =
      "id = 200 OR (id >= 700 AND id < 760) OR (id >= 1790 AND id < 1810)";

  /** Filters of flat units: none, one row, some rows, every row, a deleted row, a null vector. */
  static final String[] FILTERS = {
    null,
    "id < 0",
    "id = 1234",
    "id = 200",
    "id = 15",
    "(id >= 300 AND id < 1000) OR id > 2500",
    "id >= 0"
  };

  static BufferAllocator allocator;
  static ExecutorService pool;
  @TempDir static Path dir;
  static String ours;
  static String lance;

  @BeforeAll
  static void write() throws Exception {
    allocator = new RootAllocator();
    pool = Executors.newFixedThreadPool(2);
    ours = dir.resolve("ours").toString();
    lance = dir.resolve("lance").toString();
    try (VectorSchemaRoot batch = batch()) {
      try (ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch));
          Dataset ds =
              Dataset.write(
                      ours, reader, WriteOptions.of(WriteMode.CREATE).withMaxRowsPerFile(1800))
                  .delete(DELETED)) {
        assertThat(ds.fragments()).hasSize(2);
      }
      org.lance.Dataset.write()
          .allocator(allocator)
          .reader(ArrowStreams.readerOf(allocator, List.of(batch)))
          .uri(lance)
          .mode(WriteParams.WriteMode.CREATE)
          .maxRowsPerFile(1800)
          .execute()
          .close();
      try (org.lance.Dataset ds = LanceOracle.open(allocator, Path.of(lance))) {
        ds.delete(DELETED);
      }
    }
  }

  /** Standard rows; every 11th vector null; row 5's vector repeated at every 500th row (ties). */
  static VectorSchemaRoot batch() {
    VectorSchemaRoot batch = StandardData.generate(allocator, 0, ROWS, DIM, SEED);
    FixedSizeListVector vectors = (FixedSizeListVector) batch.getVector("vector");
    Float4Vector values = (Float4Vector) vectors.getDataVector();
    for (int r = 0; r < ROWS; r++) {
      if (r % 11 == 4) {
        vectors.setNull(r);
        for (int d = 0; d < DIM; d++) {
          values.set(r * DIM + d, 0f);
        }
      } else if (r % 500 == 0) {
        for (int d = 0; d < DIM; d++) {
          values.set(r * DIM + d, values.get(5 * DIM + d));
        }
      }
    }
    return batch;
  }

  @AfterAll
  static void tearDown() {
    pool.shutdownNow();
    allocator.close();
  }

  static float[][] queries() {
    Random random = new Random(SEED + 7);
    float[][] q = new float[3][DIM];
    for (float[] v : q) {
      for (int d = 0; d < DIM; d++) {
        v[d] = (float) random.nextGaussian();
      }
    }
    return q;
  }

  /** Whether every fragment's vectors are read directly (otherwise nothing would be compared). */
  static boolean allDirect(Dataset ds) {
    for (DataFragment f : ds.snapshot().fragments()) {
      try (FragmentReader r = ds.openFragment(f)) {
        if (r.floatVectors(ds.field("vector")) == null) {
          return false;
        }
      }
    }
    return true;
  }

  static List<UnitResult> search(Dataset ds, String filter, boolean direct) {
    List<Long> fragments = ds.fragments().stream().map(f -> f.id()).toList();
    List<UnitResult> out = new ArrayList<>();
    for (DistanceMetric metric :
        new DistanceMetric[] {DistanceMetric.L2, DistanceMetric.COSINE, DistanceMetric.DOT}) {
      FlatUnit unit =
          new FlatUnit(
              "flat-0",
              fragments,
              metric,
              25,
              filter == null ? null : ds.bindFilter(filter),
              "test");
      out.add(FlatKnnExecutor.run(ds, unit, "vector", queries(), null, null, null, 1, direct));
      out.add(FlatKnnExecutor.run(ds, unit, "vector", queries(), -50f, 1e9f, pool, 3, direct));
    }
    return out;
  }

  @Test
  void prefilteredFlatUnitsReadDirectlyAnswerAsTheArrowScan() {
    for (String location : new String[] {ours, lance}) {
      try (Dataset ds = Dataset.open(location)) {
        assertThat(allDirect(ds)).as(location).isTrue();
        for (String filter : FILTERS) {
          List<UnitResult> want = search(ds, filter, false);
          List<UnitResult> got = search(ds, filter, true);
          for (int i = 0; i < want.size(); i++) {
            String what = location + ", filter " + filter + ", search " + i;
            assertThat(got.get(i).stats().rowsScanned())
                .as(what)
                .isEqualTo(want.get(i).stats().rowsScanned());
            assertThat(got.get(i).stats().distancesComputed())
                .as(what)
                .isEqualTo(want.get(i).stats().distancesComputed());
            for (int q = 0; q < queries().length; q++) {
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
  }

  /** The id of a row of either dataset (fragment 0 holds ids 0 … 1799, fragment 1 the rest). */
  static long id(long address) {
    return RowAddress.offset(address) + (RowAddress.fragment(address) == 0 ? 0 : 1800);
  }

  @Test
  void exactDistancesOfGivenRowsReadDirectlyEqualTheArrowTake() {
    for (String location : new String[] {ours, lance}) {
      try (Dataset ds = Dataset.open(location)) {
        assertThat(allDirect(ds)).as(location).isTrue();
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
        for (DistanceMetric metric :
            new DistanceMetric[] {DistanceMetric.L2, DistanceMetric.COSINE, DistanceMetric.DOT}) {
          for (float[] q : queries()) {
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
}
