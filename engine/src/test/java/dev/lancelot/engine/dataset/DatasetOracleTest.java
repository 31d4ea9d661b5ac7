package dev.lancelot.engine.dataset;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentInfo;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.VersionInfo;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.testing.Rows;
import dev.lancelot.engine.testing.StandardData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.WriteParams;

/** F2, F3, F5 on the engine API, both directions against lance-core 7.0.0. */
@Tag("oracle")
class DatasetOracleTest {
  static final List<String> COLUMNS = List.of("id", "tenant_id", "name", "vector");
  static BufferAllocator allocator;
  static Path lanceWritten;

  @BeforeAll
  static void setUp() throws Exception {
    allocator = new RootAllocator();
    lanceWritten = Files.createTempDirectory("lance-written");
    LanceOracle.write(
        allocator, lanceWritten, 0, 9000, 128, 21, WriteParams.WriteMode.CREATE, 6000);
    LanceOracle.write(
        allocator, lanceWritten, 9000, 3000, 128, 21, WriteParams.WriteMode.APPEND, 6000);
    try (var ds = LanceOracle.open(allocator, lanceWritten)) {
      ds.delete("id % 5 = 0 AND id >= 6000");
      ds.delete("id >= 200 AND id < 5700");
    }
  }

  @AfterAll
  static void tearDown() {
    allocator.close();
  }

  static List<List<Object>> scan(Dataset ds, List<String> columns, String filter) {
    List<List<Object>> out = new ArrayList<>();
    try (CloseableIterator<VectorSchemaRoot> it =
        ds.newScan().columns(columns).filter(filter).batchSize(1000).batches()) {
      while (it.hasNext()) {
        out.addAll(Rows.of(it.next()));
      }
    }
    return out;
  }

  @Test
  void readsLanceWrittenDatasetRowForRow() {
    try (Dataset ds = Dataset.open(lanceWritten.toString())) {
      assertThat(ds.version()).isEqualTo(4);
      assertThat(ds.countRows()).isEqualTo(12000 - 1200 - 5500);
      assertThat(scan(ds, COLUMNS, null))
          .isEqualTo(LanceOracle.rows(allocator, lanceWritten, COLUMNS, null));
      assertThat(scan(ds, List.of("name", "id"), null))
          .isEqualTo(LanceOracle.rows(allocator, lanceWritten, List.of("name", "id"), null));
      String filter = "tenant_id < 3 AND name IS NOT NULL";
      assertThat(scan(ds, List.of("id", "tenant_id", "name"), filter))
          .isEqualTo(
              LanceOracle.rows(
                  allocator, lanceWritten, List.of("id", "tenant_id", "name"), filter));
      assertThat(ds.countRows(filter))
          .isEqualTo(LanceOracle.rows(allocator, lanceWritten, List.of("id"), filter).size());
    }
  }

  @Test
  void timeTravelAndVersions() {
    try (Dataset ds =
        Dataset.open(lanceWritten.toString(), OpenOptions.defaults().withVersion(1))) {
      assertThat(ds.countRows()).isEqualTo(9000);
      assertThat(ds.fragments())
          .extracting(FragmentInfo::physicalRows)
          .containsExactly(6000L, 3000L);
      List<VersionInfo> versions = ds.versions();
      assertThat(versions).extracting(VersionInfo::version).containsExactly(1L, 2L, 3L, 4L);
      assertThat(versions)
          .extracting(VersionInfo::operation)
          .containsExactly("overwrite", "append", "delete", "delete");
      assertThat(ds.checkout(2).countRows()).isEqualTo(12000);
      assertThat(ds.checkoutLatest().version()).isEqualTo(4);
    }
  }

  @Test
  void takeReturnsRowsInTheOrderAskedWithoutDeletedOnes() {
    try (Dataset ds = Dataset.open(lanceWritten.toString())) {
      long frag1 = 1L << 32;
      long[] addresses = {
        frag1 | 7,
        3,
        100,
        frag1 | 6,
        5800,
        frag1 | 1,
        200 /* deleted */,
        frag1 | 5 /* deleted */,
        (9L << 32) /* no such fragment */
      };
      try (VectorSchemaRoot rows = ds.take(addresses, List.of("id", "name"))) {
        assertThat(Rows.of(rows))
            .extracting(r -> r.get(0))
            .containsExactly(6007L, 3L, 100L, 6006L, 5800L, 6001L);
      }
    }
  }

  @Test
  void rowIdAndRowAddressColumns() {
    try (Dataset ds = Dataset.open(lanceWritten.toString());
        CloseableIterator<VectorSchemaRoot> it =
            ds.newScan()
                .columns("id")
                .withRowId(true)
                .withRowAddress(true)
                .fragments(List.of(1L))
                .batches()) {
      VectorSchemaRoot batch = it.next();
      List<List<Object>> rows = Rows.of(batch);
      for (List<Object> r : rows) {
        long id = (Long) r.get(0);
        long expected = (1L << 32) | (id - 6000);
        assertThat(r.get(1)).isEqualTo(expected);
        assertThat(r.get(2)).isEqualTo(expected);
      }
    }
  }

  @Test
  void lanceReadsWhatWeWriteAppendsToItAndIndexesIt(@TempDir Path tmp) throws Exception {
    Path dir = tmp.resolve("ours");
    List<VectorSchemaRoot> batches =
        List.of(
            StandardData.generate(allocator, 0, 3000, 32, 5),
            StandardData.generate(allocator, 3000, 2500, 32, 5));
    try (ArrowReader reader = ArrowStreams.readerOf(allocator, batches);
        Dataset ds =
            Dataset.write(
                dir.toString(),
                reader,
                WriteOptions.of(WriteMode.CREATE).withMaxRowsPerFile(2000))) {
      assertThat(ds.version()).isEqualTo(1);
      assertThat(ds.fragments())
          .extracting(FragmentInfo::physicalRows)
          .containsExactly(2000L, 2000L, 1500L);
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
    List<List<Object>> expected = new ArrayList<>();
    try (VectorSchemaRoot a = StandardData.generate(allocator, 0, 3000, 32, 5);
        VectorSchemaRoot b = StandardData.generate(allocator, 3000, 2500, 32, 5)) {
      expected.addAll(Rows.of(a));
      expected.addAll(Rows.of(b));
    }
    assertThat(LanceOracle.rows(allocator, dir, COLUMNS, null)).isEqualTo(expected);

    // Append with us, delete with us (both deletion file kinds), then Lance appends and indexes.
    try (VectorSchemaRoot c = StandardData.generate(allocator, 5500, 500, 32, 5);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(c));
        Dataset ds = Dataset.open(dir.toString())) {
      Dataset v2 = ds.append(reader);
      assertThat(v2.version()).isEqualTo(2);
      Dataset v3 = v2.delete("id < 1900 AND id >= 100"); // 1800 rows of fragment 0: Arrow IPC file
      Dataset v4 = v3.delete("id >= 2000 AND id < 3950 OR id IN (7, 1007, 2007, 3007, 4007, 5007)");
      assertThat(v4.version()).isEqualTo(4);
      assertThat(v4.countRows()).isEqualTo(LanceOracle.countRows(allocator, dir));
    }
    List<List<Object>> remaining = new ArrayList<>();
    for (List<Object> r : expected) {
      long id = (Long) r.get(0);
      if (!((id < 1900 && id >= 100) || (id >= 2000 && id < 3950) || id % 1000 == 7)) {
        remaining.add(r);
      }
    }
    List<List<Object>> lanceRows = LanceOracle.rows(allocator, dir, COLUMNS, "id < 5500");
    assertThat(lanceRows).isEqualTo(remaining);

    LanceOracle.write(allocator, dir, 10_000, 1000, 32, 6, WriteParams.WriteMode.APPEND, 10_000);
    LanceOracle.createIvfPq(allocator, dir, "vector", 8, 4);
    LanceOracle.createBTree(allocator, dir, "tenant_id");
    float[] q = new float[32];
    Random r = new Random(1);
    for (int i = 0; i < q.length; i++) {
      q[i] = (float) r.nextGaussian();
    }
    assertThat(LanceOracle.nearestIds(allocator, dir, q, 10, 8, null, false)).hasSize(10);
    assertThat(LanceOracle.nearestIds(allocator, dir, q, 10, 8, "tenant_id = 0", true)).hasSize(10);
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThat(ds.countRows()).isEqualTo(LanceOracle.countRows(allocator, dir));
      assertThat(DatasetInternals.snapshot(ds).indices()).hasSize(2);
      assertThat(scan(ds, COLUMNS, null))
          .isEqualTo(LanceOracle.rows(allocator, dir, COLUMNS, null));
    }
  }

  static Comparator<List<Object>> byId() {
    return Comparator.comparingLong(r -> (Long) r.get(0));
  }
}
