package dev.lancelot.engine.internal.query.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.internal.query.plan.FlatUnit;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.StandardData;
import dev.lancelot.engine.vector.DistanceMetric;
import java.nio.file.Path;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A flat unit scanned in parallel row ranges answers exactly as one thread does (SPEC Q9–Q11, Q14):
 * same rows, same distances, ties broken by row address across range boundaries.
 */
class FlatKnnExecutorTest {
  static BufferAllocator allocator;
  static ExecutorService pool;
  @TempDir static Path dir;
  static Dataset dataset;

  @BeforeAll
  static void setUp() throws Exception {
    allocator = new RootAllocator();
    pool = Executors.newFixedThreadPool(3);
    // 40,000 rows of dim 8 in two fragments; every 1,000th row holds the same vector (ties that
    // span
    // every range boundary)
    try (VectorSchemaRoot batch = StandardData.generate(allocator, 0, 40_000, 8, 11)) {
      Float4Vector values =
          (Float4Vector) ((FixedSizeListVector) batch.getVector("vector")).getDataVector();
      for (int r = 0; r < 40_000; r += 1000) {
        for (int d = 0; d < 8; d++) {
          values.set(r * 8 + d, 0.25f);
        }
      }
      try (ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch))) {
        dataset =
            Dataset.write(
                    dir.resolve("ds").toString(),
                    reader,
                    WriteOptions.of(WriteMode.CREATE).withMaxRowsPerFile(25_000))
                .delete(
                    "id = 4000 OR (id >= 12000 AND id < 12500) OR (id >= 24990 AND id < 25010)");
      }
    }
  }

  @AfterAll
  static void tearDown() {
    dataset.close();
    pool.shutdownNow();
    allocator.close();
  }

  private static float[][] queries() {
    Random random = new Random(5);
    float[][] q = new float[6][8];
    for (float[] v : q) {
      for (int d = 0; d < 8; d++) {
        v[d] = random.nextFloat();
      }
    }
    q[0] = new float[] {0.25f, 0.25f, 0.25f, 0.25f, 0.25f, 0.25f, 0.25f, 0.25f};
    return q;
  }

  @Test
  void parallelRangesReturnTheSameCandidatesAsOneThread() {
    List<Long> fragments = dataset.fragments().stream().map(f -> f.id()).toList();
    for (String filter : new String[] {null, "tenant_id < 3"}) {
      for (DistanceMetric metric :
          new DistanceMetric[] {DistanceMetric.L2, DistanceMetric.COSINE}) {
        FlatUnit unit =
            new FlatUnit(
                "flat-0",
                fragments,
                metric,
                25,
                filter == null ? null : dataset.bindFilter(filter),
                "test");
        UnitResult one = FlatKnnExecutor.run(dataset, unit, "vector", queries(), null, null);
        for (int parallelism : new int[] {2, 3, 5}) {
          UnitResult many =
              FlatKnnExecutor.run(
                  dataset, unit, "vector", queries(), null, null, pool, parallelism);
          assertThat(many.stats().rowsScanned()).isEqualTo(one.stats().rowsScanned());
          for (int q = 0; q < queries().length; q++) {
            Candidates a = one.perQuery().get(q);
            Candidates b = many.perQuery().get(q);
            assertThat(b.rowAddresses())
                .as("filter %s, %s, parallelism %d, query %d", filter, metric, parallelism, q)
                .containsExactly(a.rowAddresses());
            assertThat(b.exact()).containsExactly(a.exact());
          }
        }
      }
    }
  }

  @Test
  void tiesAcrossRangesKeepTheSmallestRowAddresses() {
    List<Long> fragments = dataset.fragments().stream().map(f -> f.id()).toList();
    FlatUnit unit = new FlatUnit("flat-0", fragments, DistanceMetric.L2, 5, null, "test");
    UnitResult r =
        FlatKnnExecutor.run(
            dataset, unit, "vector", new float[][] {queries()[0]}, null, null, pool, 4);
    // the five smallest addresses among the identical vectors that are not deleted: 0, 1000, 2000,
    // 3000, 5000 (row 4000 is deleted); all in fragment 0, whose addresses are the row offsets
    assertThat(r.perQuery().get(0).rowAddresses()).containsExactly(0L, 1000L, 2000L, 3000L, 5000L);
  }
}
