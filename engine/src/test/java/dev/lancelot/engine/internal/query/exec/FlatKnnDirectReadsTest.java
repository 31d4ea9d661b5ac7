package dev.lancelot.engine.internal.query.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.query.plan.FlatUnit;
import dev.lancelot.engine.internal.scan.FragmentReader;
import dev.lancelot.engine.internal.scan.RowAddress;
import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.StandardData;
import dev.lancelot.engine.vector.DistanceMetric;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Flat KNN scoring float32 vectors straight from plain pages returns bit for bit what the Arrow
 * scan returns (SPEC Q11, Q14): same rows, same distances, same order; null vectors and deleted
 * rows never appear; whatever the memory map's region boundaries, and through a non-local file
 * system (positioned reads, no map).
 */
@Tag("slow")
class FlatKnnDirectReadsTest {
  static final int DIM = 67; // 268-byte vectors: full-zip pages
  static final int ROWS = 30_000;
  static final String SCHEME = "lltest";

  static BufferAllocator allocator;
  static ExecutorService pool;
  @TempDir static Path dir;
  static String location;

  /**
   * The local file system under another scheme: Hadoop reads it as it reads HDFS or S3, not as
   * local.
   */
  public static final class OtherSchemeFileSystem extends RawLocalFileSystem {
    @Override
    public URI getUri() {
      return URI.create(SCHEME + ":///");
    }

    @Override
    public String getScheme() {
      return SCHEME;
    }
  }

  @BeforeAll
  static void setUp() throws Exception {
    allocator = new RootAllocator();
    pool = Executors.newFixedThreadPool(3);
    location = dir.resolve("ds").toString();
    // two fragments; every 11th vector null; row 5 duplicated at every 1,000th row (ties across
    // chunk, page and range boundaries); deletions in both fragments, one spanning the file
    // boundary
    try (VectorSchemaRoot batch = StandardData.generate(allocator, 0, ROWS, DIM, 17)) {
      FixedSizeListVector vectors = (FixedSizeListVector) batch.getVector("vector");
      org.apache.arrow.vector.Float4Vector values =
          (org.apache.arrow.vector.Float4Vector) vectors.getDataVector();
      for (int r = 0; r < ROWS; r++) {
        if (r % 11 == 4) {
          vectors.setNull(r);
        } else if (r % 1000 == 0) {
          for (int d = 0; d < DIM; d++) {
            values.set(r * DIM + d, values.get(5 * DIM + d));
          }
        }
      }
      try (ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch));
          Dataset ds =
              Dataset.write(
                      location,
                      reader,
                      WriteOptions.of(WriteMode.CREATE).withMaxRowsPerFile(18_000))
                  .delete(
                      "id = 2000 OR (id >= 7000 AND id < 7400) OR (id >= 17990 AND id < 18020)")) {
        assertThat(ds.fragments()).hasSize(2);
      }
    }
  }

  @AfterAll
  static void tearDown() {
    pool.shutdownNow();
    allocator.close();
  }

  static float[][] queries() {
    Random random = new Random(3);
    float[][] q = new float[4][DIM];
    for (float[] v : q) {
      for (int d = 0; d < DIM; d++) {
        v[d] = (float) random.nextGaussian();
      }
    }
    return q;
  }

  static Configuration conf() {
    Configuration conf = new Configuration(false);
    conf.set("fs." + SCHEME + ".impl", OtherSchemeFileSystem.class.getName());
    conf.setBoolean("fs." + SCHEME + ".impl.disable.cache", true);
    return conf;
  }

  /** Searches through direct reads or, with {@code direct} false, through the Arrow scan. */
  static List<UnitResult> search(Dataset ds, boolean direct) {
    List<Long> fragments = ds.fragments().stream().map(f -> f.id()).toList();
    List<UnitResult> out = new ArrayList<>();
    for (DistanceMetric metric :
        new DistanceMetric[] {DistanceMetric.L2, DistanceMetric.COSINE, DistanceMetric.DOT}) {
      FlatUnit unit = new FlatUnit("flat-0", fragments, metric, 40, null, "test");
      out.add(FlatKnnExecutor.run(ds, unit, "vector", queries(), null, null, null, 1, direct));
      out.add(FlatKnnExecutor.run(ds, unit, "vector", queries(), null, null, pool, 3, direct));
      out.add(FlatKnnExecutor.run(ds, unit, "vector", queries(), -50f, 1e9f, pool, 2, direct));
    }
    return out;
  }

  static void assertSame(List<UnitResult> got, List<UnitResult> want, String what) {
    assertThat(got).hasSameSizeAs(want);
    for (int i = 0; i < want.size(); i++) {
      assertThat(got.get(i).stats().rowsScanned())
          .as("%s, search %d", what, i)
          .isEqualTo(want.get(i).stats().rowsScanned());
      for (int q = 0; q < queries().length; q++) {
        Candidates a = want.get(i).perQuery().get(q);
        Candidates b = got.get(i).perQuery().get(q);
        assertThat(b.rowAddresses())
            .as("%s, search %d, query %d", what, i, q)
            .containsExactly(a.rowAddresses());
        assertThat(b.exact()).as("%s, search %d, query %d", what, i, q).containsExactly(a.exact());
      }
    }
  }

  /**
   * Whether every fragment's vectors are read directly (otherwise this test would compare the Arrow
   * scan with itself).
   */
  static boolean allDirect(Dataset ds) {
    for (DataFragment f : DatasetInternals.snapshot(ds).fragments()) {
      try (FragmentReader r = DatasetInternals.openFragment(ds, f)) {
        if (r.vectorPages(ds.field("vector")) == null) {
          return false;
        }
      }
    }
    return true;
  }

  @Test
  void directReadsAnswerAsTheArrowScan() {
    try (Dataset ds = Dataset.open(location)) {
      assertThat(allDirect(ds)).isTrue();
      List<UnitResult> arrow = search(ds, false);
      List<UnitResult> direct = search(ds, true);
      assertSame(direct, arrow, "direct vs Arrow");
      for (UnitResult r : direct) {
        for (Candidates c : r.perQuery()) {
          assertThat(c.rowAddresses()).hasSize(40);
          for (long a : c.rowAddresses()) {
            long offset = RowAddress.offset(a) + (RowAddress.fragment(a) == 0 ? 0 : 18_000);
            assertThat(offset % 11).as("null vectors never match").isNotEqualTo(4);
            assertThat(
                    offset == 2000
                        || offset >= 7000 && offset < 7400
                        || offset >= 17990 && offset < 18020)
                .as("deleted rows never match")
                .isFalse();
          }
        }
      }
      UnitResult ties =
          FlatKnnExecutor.run(
              ds,
              new FlatUnit("flat-0", List.of(0L, 1L), DistanceMetric.L2, 4, null, "test"),
              "vector",
              new float[][] {vectorOfRow5(ds)},
              null,
              null,
              pool,
              3);
      // row 5 and its copies at 0, 1000, 3000 (2000 is deleted) all at distance 0: smallest
      // addresses win
      assertThat(ties.perQuery().get(0).rowAddresses()).containsExactly(0L, 5L, 1000L, 3000L);
    }
  }

  static float[] vectorOfRow5(Dataset ds) {
    try (VectorSchemaRoot row = ds.take(new long[] {5}, List.of("vector"))) {
      FixedSizeListVector v = (FixedSizeListVector) row.getVector("vector");
      float[] out = new float[DIM];
      for (int d = 0; d < DIM; d++) {
        out[d] = ((org.apache.arrow.vector.Float4Vector) v.getDataVector()).get(d);
      }
      return out;
    }
  }

  @Test
  void mapRegionsCuttingRowsApartAndNonLocalFileSystemsAnswerTheSame() {
    List<UnitResult> want;
    try (Dataset ds = Dataset.open(location)) {
      want = search(ds, true);
    }
    Configuration small = conf();
    small.setLong(HadoopFileIO.MMAP_REGION_BYTES, 4099);
    small.setLong(HadoopFileIO.MMAP_MIN_FILE_BYTES, 0);
    try (Dataset ds = Dataset.open(location, OpenOptions.defaults().withHadoopConf(small))) {
      assertThat(allDirect(ds)).isTrue();
      assertSame(search(ds, true), want, "4099-byte map regions");
    }
    Configuration off = conf();
    off.setBoolean(HadoopFileIO.MMAP, false);
    try (Dataset ds = Dataset.open(location, OpenOptions.defaults().withHadoopConf(off))) {
      assertSame(search(ds, true), want, "positioned reads");
    }
    try (Dataset ds =
        Dataset.open(SCHEME + ":" + location, OpenOptions.defaults().withHadoopConf(conf()))) {
      assertThat(ds.location()).startsWith(SCHEME + ":");
      assertThat(allDirect(ds)).isTrue();
      assertSame(search(ds, true), want, "non-local file system");
      assertSame(search(ds, false), want, "non-local file system, Arrow scan");
    }
  }
}
