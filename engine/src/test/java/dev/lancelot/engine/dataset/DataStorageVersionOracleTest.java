package dev.lancelot.engine.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.CompactionOptions;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.format.FeatureFlags;
import dev.lancelot.engine.internal.format.proto.TableProtos.Manifest;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.testing.Rows;
import dev.lancelot.engine.testing.StandardData;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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

/**
 * The data storage version of writes (docs/decisions.md D54): lancelot creates 2.1 and 2.2 datasets
 * that lance-core 7.0.0 reads as its own, appends keep a dataset's version (no mixed file versions
 * with 2.2 datasets), and versions lancelot cannot write are refused before anything is written.
 */
@Tag("oracle")
class DataStorageVersionOracleTest {
  static final int DIM = 16;
  static final List<String> COLUMNS = List.of("id", "tenant_id", "name", "vector");
  static BufferAllocator allocator;

  @BeforeAll
  static void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  static void tearDown() {
    allocator.close();
  }

  static Dataset write(Path dir, long firstId, int rows, WriteOptions options) throws Exception {
    try (VectorSchemaRoot batch = StandardData.generate(allocator, firstId, rows, DIM, 9);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch))) {
      return Dataset.write(dir.toString(), reader, options.withMaxRowsPerFile(250));
    }
  }

  static void lanceWrite(Path dir, long firstId, int rows, WriteParams.WriteMode mode, String v) {
    try (VectorSchemaRoot batch = StandardData.generate(allocator, firstId, rows, DIM, 9)) {
      var w =
          org.lance.Dataset.write()
              .allocator(allocator)
              .reader(ArrowStreams.readerOf(allocator, List.of(batch)))
              .uri(dir.toString())
              .mode(mode);
      if (v != null) {
        w.dataStorageVersion(v);
      }
      w.execute().close();
    }
  }

  static List<List<Object>> expected(long firstId, int rows) {
    try (VectorSchemaRoot b = StandardData.generate(allocator, firstId, rows, DIM, 9)) {
      return Rows.of(b);
    }
  }

  static List<List<Object>> scan(Dataset ds) {
    return BasePathsOracleTest.scan(ds, COLUMNS, null);
  }

  static Manifest manifest(Dataset ds) {
    return DatasetInternals.snapshot(ds).manifest();
  }

  static String lanceVersion(Path dir) {
    try (org.lance.Dataset lance = LanceOracle.open(allocator, dir)) {
      return lance.getLanceFileFormatVersion();
    }
  }

  @Test
  void createsA22DatasetLanceReadsAndAppendsToWithoutMixing(@TempDir Path tmp) throws Exception {
    Path dir = tmp.resolve("ds");
    try (Dataset ds =
        write(dir, 0, 600, WriteOptions.of(WriteMode.CREATE).withDataStorageVersion("2.2"))) {
      assertThat(ds.dataStorageVersion()).isEqualTo("2.2");
      assertThat(ds.dataFileVersions()).containsExactly("2.2");
    }
    assertThat(lanceVersion(dir)).isEqualTo("2.2");
    assertThat(LanceOracle.rows(allocator, dir, COLUMNS, null)).isEqualTo(expected(0, 600));
    // appends leave the version unset: they keep the dataset's 2.2
    write(dir, 600, 300, WriteOptions.of(WriteMode.APPEND)).close();
    // lance-core appends 2.2 files too
    lanceWrite(dir, 900, 100, WriteParams.WriteMode.APPEND, null);
    List<List<Object>> all = new ArrayList<>(expected(0, 600));
    all.addAll(expected(600, 300));
    all.addAll(expected(900, 100));
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThat(ds.dataStorageVersion()).isEqualTo("2.2");
      assertThat(ds.dataFileVersions()).containsExactly("2.2");
      assertThat(manifest(ds).getReaderFeatureFlags() & FeatureFlags.MIXED_DATA_FILE_VERSIONS)
          .isZero();
      assertThat(scan(ds)).isEqualTo(all);
    }
    // Lance 7 refuses datasets with flag 256: reading all rows proves no file versions were mixed
    assertThat(LanceOracle.rows(allocator, dir, COLUMNS, null)).isEqualTo(all);
  }

  @Test
  void appendsToLanceDatasetsKeepTheirVersion(@TempDir Path tmp) throws Exception {
    for (String v : List.of("2.1", "2.2")) {
      Path dir = tmp.resolve("ds" + v);
      lanceWrite(dir, 0, 400, WriteParams.WriteMode.CREATE, v);
      write(dir, 400, 300, WriteOptions.of(WriteMode.APPEND)).close();
      // naming the dataset's own version is accepted
      write(dir, 700, 50, WriteOptions.of(WriteMode.APPEND).withDataStorageVersion(v)).close();
      List<List<Object>> all = new ArrayList<>(expected(0, 400));
      all.addAll(expected(400, 300));
      all.addAll(expected(700, 50));
      try (Dataset ds = Dataset.open(dir.toString())) {
        assertThat(ds.dataFileVersions()).as(v).containsExactly(v);
        assertThat(scan(ds)).as(v).isEqualTo(all);
        assertThat(manifest(ds).getWriterFeatureFlags() & FeatureFlags.MIXED_DATA_FILE_VERSIONS)
            .as(v)
            .isZero();
      }
      assertThat(lanceVersion(dir)).isEqualTo(v);
      assertThat(LanceOracle.rows(allocator, dir, COLUMNS, null)).as(v).isEqualTo(all);
    }
  }

  @Test
  void appendNamingAnotherVersionIsRefusedBeforeWriting(@TempDir Path tmp) throws Exception {
    Path dir = tmp.resolve("ds");
    write(dir, 0, 100, WriteOptions.of(WriteMode.CREATE).withDataStorageVersion("2.2")).close();
    java.io.File[] before = dir.resolve("data").toFile().listFiles();
    assertThatThrownBy(
            () ->
                write(
                    dir, 100, 10, WriteOptions.of(WriteMode.APPEND).withDataStorageVersion("2.1")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("data storage version 2.2")
        .hasMessageContaining("appends keep the dataset's version");
    assertThat(dir.resolve("data").toFile().listFiles()).hasSameSizeAs(before);
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThat(ds.version()).isEqualTo(1);
    }
  }

  @Test
  void overwriteChangesTheVersionAndCompactionKeepsIt(@TempDir Path tmp) throws Exception {
    Path dir = tmp.resolve("ds");
    write(dir, 0, 300, WriteOptions.of(WriteMode.CREATE)).close();
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThat(ds.dataStorageVersion()).isEqualTo("2.1");
    }
    write(dir, 0, 500, WriteOptions.of(WriteMode.OVERWRITE).withDataStorageVersion("2.2")).close();
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThat(ds.dataStorageVersion()).isEqualTo("2.2");
      assertThat(ds.dataFileVersions()).containsExactly("2.2");
      assertThat(ds.fragments()).hasSize(2);
      var compacted = ds.compact(CompactionOptions.defaults());
      assertThat(compacted.committed()).isTrue();
      compacted.dataset().close();
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThat(ds.fragments()).hasSize(1);
      assertThat(ds.dataFileVersions()).containsExactly("2.2");
      assertThat(scan(ds)).isEqualTo(expected(0, 500));
    }
    assertThat(lanceVersion(dir)).isEqualTo("2.2");
    assertThat(LanceOracle.rows(allocator, dir, COLUMNS, null)).isEqualTo(expected(0, 500));
  }

  @Test
  void stableMeansWhatLanceMakesOfIt(@TempDir Path tmp) throws Exception {
    Path lance = tmp.resolve("lance");
    lanceWrite(lance, 0, 10, WriteParams.WriteMode.CREATE, "stable");
    Path ours = tmp.resolve("ours");
    try (Dataset ds =
        write(ours, 0, 10, WriteOptions.of(WriteMode.CREATE).withDataStorageVersion("stable"))) {
      assertThat(ds.dataStorageVersion()).isEqualTo(lanceVersion(lance));
    }
    // and so does no version at all
    Path lanceDefault = tmp.resolve("lance-default");
    lanceWrite(lanceDefault, 0, 10, WriteParams.WriteMode.CREATE, null);
    try (Dataset ds =
        write(tmp.resolve("ours-default"), 0, 10, WriteOptions.of(WriteMode.CREATE))) {
      assertThat(ds.dataStorageVersion()).isEqualTo(lanceVersion(lanceDefault));
    }
  }

  @Test
  void versionsLancelotCannotWriteAreRefused() {
    for (String v : List.of("2.0", "legacy", "0.1", "2.3", "next", "")) {
      assertThatThrownBy(() -> WriteOptions.of(WriteMode.CREATE).withDataStorageVersion(v))
          .as(v)
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("\"" + v + "\"")
          .hasMessageContaining("2.1 and 2.2");
    }
  }
}
