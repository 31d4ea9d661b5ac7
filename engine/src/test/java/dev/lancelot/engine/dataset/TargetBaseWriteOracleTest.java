package dev.lancelot.engine.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentMetadata;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.distributed.DistributedWrite;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFile;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.schema.LanceSchema;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.StandardData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.WriteParams;

/**
 * Writes to a named base ({@link WriteOptions#withTargetBase}) against lance-core 7.0.0: new data
 * files go where Lance's {@code targetBases} puts them (a dataset-root base's {@code data/}, a
 * plain base's directory) with the base's id; lance-core reads the result row for row and appends
 * after it; an unknown base is refused and nothing is written.
 */
@Tag("oracle")
class TargetBaseWriteOracleTest {
  @BeforeAll
  static void setUp() {
    BasePathsOracleTest.setUp();
  }

  @AfterAll
  static void tearDown() {
    BasePathsOracleTest.tearDown();
  }

  static Dataset write(Path dir, long firstId, int rows, WriteOptions options) {
    try (VectorSchemaRoot batch =
            StandardData.generate(BasePathsOracleTest.allocator, firstId, rows, 16, 9);
        ArrowReader reader = ArrowStreams.readerOf(BasePathsOracleTest.allocator, List.of(batch))) {
      return Dataset.write(dir.toString(), reader, options);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  static List<String> files(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile)
          .map(p -> dir.relativize(p).toString())
          .sorted()
          .toList();
    }
  }

  /** The data files of the fragments {@code ds} has beyond the first {@code skip}. */
  static List<DataFile> newFiles(Dataset ds, int skip) {
    List<DataFragment> all = DatasetInternals.snapshot(ds).fragments();
    return all.subList(skip, all.size()).stream().flatMap(f -> f.getFilesList().stream()).toList();
  }

  @Test
  void newFilesGoToTheNamedBaseAsLancePutsThem(@TempDir Path tmp) throws IOException {
    Path ds = BasePathsOracleTest.lanceMultiBase(tmp); // bases b1 (dataset root), b2 (directory)
    List<String> b1Before = files(tmp.resolve("b1/data"));
    List<String> rootBefore = files(ds.resolve("data"));
    int fragments;
    try (Dataset before = Dataset.open(ds.toString())) {
      fragments = DatasetInternals.snapshot(before).fragments().size();
    }
    WriteOptions append = WriteOptions.of(WriteMode.APPEND).withMaxRowsPerFile(60);
    try (Dataset after = write(ds, 5000, 150, append.withTargetBase("b1"))) {
      List<DataFile> added = newFiles(after, fragments);
      assertThat(added).hasSize(3).allMatch(f -> f.hasBaseId() && f.getBaseId() == 1);
      assertThat(files(tmp.resolve("b1/data")))
          .hasSize(b1Before.size() + 3)
          .containsAll(added.stream().map(DataFile::getPath).toList());
      fragments += 3;
      BasePathsOracleTest.assertReadsAsLance(after, ds);
    }
    // a plain directory base, named by its path: files directly under it
    try (Dataset after =
        write(ds, 6000, 50, append.withTargetBase(tmp.resolve("b2files").toString()))) {
      List<DataFile> added = newFiles(after, fragments);
      assertThat(added).singleElement().satisfies(f -> assertThat(f.getBaseId()).isEqualTo(2));
      assertThat(tmp.resolve("b2files").resolve(added.get(0).getPath())).exists();
      fragments += 1;
      BasePathsOracleTest.assertReadsAsLance(after, ds);
    }
    assertThat(files(ds.resolve("data"))).isEqualTo(rootBefore); // nothing new at the root
    // Lance's own append to b1 records its files the same way, and continues from ours
    BasePathsOracleTest.lanceWrite(ds, 7000, 40, WriteParams.WriteMode.APPEND, null, List.of("b1"));
    try (Dataset latest = Dataset.open(ds.toString())) {
      List<DataFile> theirs = newFiles(latest, fragments);
      assertThat(theirs).singleElement().satisfies(f -> assertThat(f.getBaseId()).isEqualTo(1));
      assertThat(tmp.resolve("b1/data").resolve(theirs.get(0).getPath())).exists();
      BasePathsOracleTest.assertReadsAsLance(latest, ds);
      assertThat(latest.countRows())
          .isEqualTo(
              dev.lancelot.engine.testing.LanceOracle.countRows(BasePathsOracleTest.allocator, ds));
    }
  }

  @Test
  void anUnknownBaseIsRefusedAndNothingIsWritten(@TempDir Path tmp) throws IOException {
    Path ds = BasePathsOracleTest.lanceMultiBase(tmp);
    List<String> before = files(tmp);
    long version;
    try (Dataset d = Dataset.open(ds.toString())) {
      version = d.version();
    }
    WriteOptions append = WriteOptions.of(WriteMode.APPEND);
    for (String bad : List.of("nope", "../b1", tmp.resolve("elsewhere").toString())) {
      assertThatThrownBy(() -> write(ds, 5000, 10, append.withTargetBase(bad)))
          .as("base %s", bad)
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("Cannot write to base \"" + bad + "\"")
          .hasMessageContaining("the dataset's bases are [")
          .hasMessageContaining("b1=")
          .hasMessageContaining("b2=");
    }
    assertThat(files(tmp)).isEqualTo(before);
    try (Dataset d = Dataset.open(ds.toString())) {
      assertThat(d.version()).isEqualTo(version);
    }
    // a dataset without bases, and one that does not exist yet
    Path plain = tmp.resolve("plain");
    write(plain, 0, 10, WriteOptions.of(WriteMode.CREATE)).close();
    assertThatThrownBy(() -> write(plain, 10, 10, append.withTargetBase("b1")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("the dataset registers no base paths");
    Path fresh = tmp.resolve("fresh");
    assertThatThrownBy(
            () -> write(fresh, 0, 10, WriteOptions.of(WriteMode.CREATE).withTargetBase("b1")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(
            "the dataset does not exist yet (bases are registered when a dataset is created");
    assertThat(fresh).doesNotExist();
  }

  /**
   * The tasks of a distributed write (Spark's) take the target base too: their files go under it
   * with its id, the commit is read by lance-core as by us, and an aborted job's files are deleted
   * from the base.
   */
  @Test
  void distributedWritesTakeTheTargetBase(@TempDir Path tmp) throws IOException {
    Path ds = BasePathsOracleTest.lanceMultiBase(tmp);
    org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration();
    List<String> b1Before = files(tmp.resolve("b1/data"));
    List<String> rootBefore = files(ds.resolve("data"));
    LanceSchema schema;
    long readVersion;
    int fragments;
    try (Dataset d = Dataset.open(ds.toString())) {
      schema = d.lanceSchema();
      readVersion = d.version();
      fragments = DatasetInternals.snapshot(d).fragments().size();
    }
    WriteOptions options =
        WriteOptions.of(WriteMode.APPEND).withMaxRowsPerFile(40).withTargetBase("b1");
    List<FragmentMetadata> written = new ArrayList<>();
    for (int task = 0; task < 2; task++) {
      try (VectorSchemaRoot batch =
              StandardData.generate(BasePathsOracleTest.allocator, 8000 + task * 100, 70, 16, 9);
          dev.lancelot.engine.distributed.FragmentWriter w =
              DistributedWrite.newFragmentWriter(ds.toString(), conf, schema, options)) {
        w.write(batch);
        written.addAll(w.finish());
      }
    }
    assertThat(files(tmp.resolve("b1/data"))).hasSize(b1Before.size() + 4);
    try (Dataset after =
        DistributedWrite.commit(ds.toString(), conf, schema, written, options, readVersion)) {
      List<DataFile> added = newFiles(after, fragments);
      assertThat(added).hasSize(4).allMatch(f -> f.hasBaseId() && f.getBaseId() == 1);
      BasePathsOracleTest.assertReadsAsLance(after, ds);
    }
    assertThat(files(ds.resolve("data"))).isEqualTo(rootBefore);

    // an aborted job: its files under the base are deleted
    List<String> b1Committed = files(tmp.resolve("b1/data"));
    List<FragmentMetadata> aborted = new ArrayList<>();
    try (VectorSchemaRoot batch =
            StandardData.generate(BasePathsOracleTest.allocator, 9000, 50, 16, 9);
        dev.lancelot.engine.distributed.FragmentWriter w =
            DistributedWrite.newFragmentWriter(ds.toString(), conf, schema, options)) {
      w.write(batch);
      aborted.addAll(w.finish());
    }
    assertThat(files(tmp.resolve("b1/data"))).hasSize(b1Committed.size() + 2);
    DistributedWrite.abort(ds.toString(), conf, aborted);
    assertThat(files(tmp.resolve("b1/data"))).isEqualTo(b1Committed);

    // an unknown base is refused by the task before it writes anything
    assertThatThrownBy(
            () ->
                DistributedWrite.newFragmentWriter(
                    ds.toString(), conf, schema, options.withTargetBase("nope")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("Cannot write to base \"nope\"");
  }
}
