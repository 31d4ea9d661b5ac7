package dev.lancelot.engine.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.DatasetAlreadyExistsException;
import dev.lancelot.engine.DatasetNotFoundException;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.SchemaMismatchException;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.internal.format.ManifestFile;
import dev.lancelot.engine.internal.format.proto.TableProtos.Manifest;
import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.testing.StandardData;
import java.nio.file.Files;
import java.nio.file.Path;
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

/** F6: bad input gives a clear error naming the path and the reason — never a wrong answer. */
@Tag("oracle")
class BadInputTest {
  static BufferAllocator allocator;

  @BeforeAll
  static void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  static void tearDown() {
    allocator.close();
  }

  @Test
  void missingDatasetAndMissingVersion(@TempDir Path tmp) {
    assertThatThrownBy(() -> Dataset.open(tmp.resolve("nothing").toString()))
        .isInstanceOf(DatasetNotFoundException.class)
        .hasMessageContaining("Cannot open dataset")
        .hasMessageContaining("nothing")
        .hasMessageContaining("no Lance dataset there");
    LanceOracle.write(allocator, tmp.resolve("ds"), 0, 10, 4, 1, WriteParams.WriteMode.CREATE, 100);
    assertThatThrownBy(
            () -> Dataset.open(tmp.resolve("ds").toString(), OpenOptions.defaults().withVersion(5)))
        .isInstanceOf(DatasetNotFoundException.class)
        .hasMessageContaining("Cannot open version 5")
        .hasMessageContaining("Available versions: 1 to 1");
  }

  @Test
  void corruptDataFileNamesTheFile(@TempDir Path tmp) throws Exception {
    Path dir = tmp.resolve("ds");
    LanceOracle.write(allocator, dir, 0, 100, 4, 1, WriteParams.WriteMode.CREATE, 100);
    Path data;
    try (var files = Files.list(dir.resolve("data"))) {
      data = files.findFirst().orElseThrow();
    }
    byte[] bytes = Files.readAllBytes(data);
    Files.write(data, java.util.Arrays.copyOf(bytes, bytes.length - 3)); // truncated, footer gone
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThatThrownBy(() -> drain(ds))
          .isInstanceOf(LancelotException.class)
          .hasMessageContaining(data.getFileName().toString());
    }
    bytes[bytes.length - 1] = 'X'; // bad magic
    Files.write(data, bytes);
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThatThrownBy(() -> drain(ds))
          .isInstanceOf(LancelotException.class)
          .hasMessageContaining(data.getFileName().toString())
          .hasMessageContaining("magic");
    }
  }

  @Test
  void unknownReaderFeatureFlagAndEscapingPathsAreRefusedAtOpen(@TempDir Path tmp)
      throws Exception {
    Path dir = tmp.resolve("ds");
    LanceOracle.write(allocator, dir, 0, 10, 4, 1, WriteParams.WriteMode.CREATE, 100);
    Path manifestPath;
    try (var files = Files.list(dir.resolve("_versions"))) {
      manifestPath =
          files.filter(p -> p.toString().endsWith(".manifest")).findFirst().orElseThrow();
    }
    ManifestFile mf =
        ManifestFile.read(HadoopFileIO.local().newInputFile(manifestPath.toUri().toString()));

    Manifest flagged =
        mf.manifest().toBuilder()
            .setReaderFeatureFlags(mf.manifest().getReaderFeatureFlags() | 4096)
            .build();
    Files.write(
        manifestPath, ManifestFile.write(flagged, mf.indices(), mf.transaction().orElse(null)));
    assertThatThrownBy(() -> Dataset.open(dir.toString()))
        .isInstanceOf(LancelotException.class)
        .hasMessageContaining("reader feature flags 4096 (unknown)")
        .hasMessageContaining(dir.getFileName().toString());

    Manifest escaping =
        mf.manifest().toBuilder()
            .setFragments(
                0,
                mf.manifest().getFragments(0).toBuilder()
                    .setFiles(
                        0,
                        mf.manifest().getFragments(0).getFiles(0).toBuilder()
                            .setPath("../../etc/passwd")))
            .build();
    Files.write(
        manifestPath, ManifestFile.write(escaping, mf.indices(), mf.transaction().orElse(null)));
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThatThrownBy(() -> drain(ds))
          .isInstanceOf(LancelotException.class)
          .hasMessageContaining("../../etc/passwd")
          .hasMessageContaining("escapes the dataset root");
    }
  }

  @Test
  void appendWithMismatchingSchemaAndCreateOverExisting(@TempDir Path tmp) throws Exception {
    Path dir = tmp.resolve("ds");
    LanceOracle.write(allocator, dir, 0, 10, 4, 1, WriteParams.WriteMode.CREATE, 100);
    try (VectorSchemaRoot wrongDim = StandardData.generate(allocator, 10, 5, 8, 1);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(wrongDim))) {
      assertThatThrownBy(
              () -> Dataset.write(dir.toString(), reader, WriteOptions.of(WriteMode.APPEND)))
          .isInstanceOf(SchemaMismatchException.class)
          .hasMessageContaining("Cannot append to")
          .hasMessageContaining(dir.getFileName().toString())
          .hasMessageContaining("column \"vector\"");
    }
    try (VectorSchemaRoot rows = StandardData.generate(allocator, 10, 5, 4, 1);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(rows))) {
      assertThatThrownBy(
              () -> Dataset.write(dir.toString(), reader, WriteOptions.of(WriteMode.CREATE)))
          .isInstanceOf(DatasetAlreadyExistsException.class)
          .hasMessageContaining("already exists");
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThat(ds.version()).isEqualTo(1);
    }
  }

  @Test
  void malformedFiltersAndUnknownColumns(@TempDir Path tmp) {
    Path dir = tmp.resolve("ds");
    LanceOracle.write(allocator, dir, 0, 10, 4, 1, WriteParams.WriteMode.CREATE, 100);
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThatThrownBy(() -> ds.countRows("tenant_id = "))
          .isInstanceOf(LancelotException.class)
          .hasMessageContaining("tenant_id = ");
      assertThatThrownBy(() -> ds.countRows("tenant = 3"))
          .isInstanceOf(LancelotException.class)
          .hasMessageContaining("tenant");
      assertThatThrownBy(() -> ds.countRows("name > 3"))
          .isInstanceOf(LancelotException.class)
          .hasMessageContaining("name");
      assertThatThrownBy(() -> ds.newScan().columns("nope").batches())
          .isInstanceOf(LancelotException.class)
          .hasMessageContaining("nope")
          .hasMessageContaining("[id, tenant_id, name, vector]");
    }
  }

  static void drain(Dataset ds) {
    try (CloseableIterator<VectorSchemaRoot> it = ds.newScan().batches()) {
      while (it.hasNext()) {
        it.next();
      }
    }
  }
}
