package dev.lancelot.engine.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.BasePathInfo;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InitialBase;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFile;
import dev.lancelot.engine.internal.format.proto.TableProtos.Manifest;
import dev.lancelot.engine.testing.LanceOracle;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.WriteParams;

/**
 * Registering base paths when a dataset is created ({@link WriteOptions#withInitialBases}, decision
 * D68) against lance-core 7.0.0's {@code initialBases}: the manifest registers the same bases (ids,
 * names, paths, layout) and flag 16 as lance-core's own create; the create's files go to the target
 * base among them; lance-core reads the dataset row for row and appends to each base; and what
 * lance-core refuses (bases given to an append or overwrite) is refused, with bad paths and
 * ambiguous names, before anything is written.
 */
@Tag("oracle")
class InitialBasesOracleTest {
  @BeforeAll
  static void setUp() {
    BasePathsOracleTest.setUp();
  }

  @AfterAll
  static void tearDown() {
    BasePathsOracleTest.tearDown();
  }

  private static List<BasePathInfo> bases(Path ds) {
    try (Dataset d = Dataset.open(ds.toString())) {
      return d.basePaths().stream().sorted(Comparator.comparingInt(BasePathInfo::id)).toList();
    }
  }

  private static Manifest manifest(Path ds) {
    try (Dataset d = Dataset.open(ds.toString())) {
      return DatasetInternals.snapshot(d).manifest();
    }
  }

  @Test
  void aCreateRegistersTheBasesLanceRegistersAndLanceWritesToThem(@TempDir Path tmp)
      throws IOException {
    Path ours = tmp.resolve("ours");
    Path theirs = tmp.resolve("theirs");
    String b1 = tmp.resolve("b1").toString();
    String b2 = tmp.resolve("b2files").toString();
    String b3 = "file://" + tmp.resolve("b3");
    WriteOptions create =
        WriteOptions.of(WriteMode.CREATE)
            .withMaxRowsPerFile(100)
            .withInitialBases(
                List.of(
                    InitialBase.datasetRoot("b1", b1),
                    InitialBase.directory("b2", b2),
                    new InitialBase(null, b3, true)))
            .withTargetBase("b1");
    try (Dataset d = TargetBaseWriteOracleTest.write(ours, 0, 250, create)) {
      List<DataFile> files =
          DatasetInternals.snapshot(d).fragments().stream()
              .flatMap(f -> f.getFilesList().stream())
              .toList();
      assertThat(files).hasSize(3).allMatch(f -> f.hasBaseId() && f.getBaseId() == 1);
      assertThat(TargetBaseWriteOracleTest.files(tmp.resolve("b1/data"))).hasSize(3);
      assertThat(TargetBaseWriteOracleTest.files(ours.resolve("data"))).isEmpty();
    }
    BasePathsOracleTest.lanceWrite(
        theirs,
        0,
        250,
        WriteParams.WriteMode.CREATE,
        List.of(
            new org.lance.BasePath(1, Optional.of("b1"), b1, true),
            new org.lance.BasePath(2, Optional.of("b2"), b2, false),
            new org.lance.BasePath(3, Optional.empty(), b3, true)),
        List.of("b1"));
    assertThat(bases(ours)).isEqualTo(bases(theirs));
    Manifest m = manifest(ours);
    Manifest l = manifest(theirs);
    assertThat(m.getReaderFeatureFlags() & 16)
        .isEqualTo(l.getReaderFeatureFlags() & 16)
        .isEqualTo(16);
    assertThat(m.getWriterFeatureFlags() & 16)
        .isEqualTo(l.getWriterFeatureFlags() & 16)
        .isEqualTo(16);

    // lance-core reads ours and appends to each of its bases; we read that
    try (Dataset d = Dataset.open(ours.toString())) {
      BasePathsOracleTest.assertReadsAsLance(d, ours);
    }
    BasePathsOracleTest.lanceWrite(
        ours, 1000, 50, WriteParams.WriteMode.APPEND, null, List.of("b2"));
    BasePathsOracleTest.lanceWrite(ours, 2000, 50, WriteParams.WriteMode.APPEND, null, List.of(b3));
    assertThat(TargetBaseWriteOracleTest.files(tmp.resolve("b2files"))).hasSize(1);
    assertThat(TargetBaseWriteOracleTest.files(tmp.resolve("b3/data"))).hasSize(1);
    // and we append to the unnamed base by its path
    try (Dataset d =
        TargetBaseWriteOracleTest.write(
            ours, 3000, 40, WriteOptions.of(WriteMode.APPEND).withTargetBase(b3))) {
      assertThat(TargetBaseWriteOracleTest.files(tmp.resolve("b3/data"))).hasSize(2);
      BasePathsOracleTest.assertReadsAsLance(d, ours);
      assertThat(d.countRows()).isEqualTo(390);
    }
  }

  @Test
  void whatLanceRefusesAndBadBasesAreRefusedBeforeAnythingIsWritten(@TempDir Path tmp)
      throws IOException {
    Path ds = tmp.resolve("ds");
    String b1 = tmp.resolve("b1").toString();
    List<InitialBase> one = List.of(InitialBase.datasetRoot("b1", b1));
    // as lance-core: only a create registers bases
    TargetBaseWriteOracleTest.write(ds, 0, 20, WriteOptions.of(WriteMode.CREATE)).close();
    List<String> before = TargetBaseWriteOracleTest.files(tmp);
    for (WriteMode mode : List.of(WriteMode.APPEND, WriteMode.OVERWRITE)) {
      assertThatThrownBy(
              () ->
                  TargetBaseWriteOracleTest.write(
                      ds, 100, 10, WriteOptions.of(mode).withInitialBases(one)))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("in mode " + mode)
          .hasMessageContaining("bases are registered only when a dataset is created");
      WriteParams.WriteMode lanceMode =
          mode == WriteMode.APPEND ? WriteParams.WriteMode.APPEND : WriteParams.WriteMode.OVERWRITE;
      assertThatThrownBy(
              () ->
                  BasePathsOracleTest.lanceWrite(
                      ds,
                      100,
                      10,
                      lanceMode,
                      List.of(new org.lance.BasePath(1, Optional.of("b1"), b1, true)),
                      null))
          .hasMessageContaining("Only CREATE mode can register new bases");
    }
    assertThat(TargetBaseWriteOracleTest.files(tmp)).isEqualTo(before);

    Path fresh = tmp.resolve("fresh");
    String b2 = tmp.resolve("b2").toString();
    List<List<InitialBase>> bad =
        List.of(
            List.of(InitialBase.datasetRoot("r", "relative/dir")),
            List.of(InitialBase.datasetRoot("d", tmp + "/b1/../elsewhere")),
            List.of(InitialBase.datasetRoot("q", "file://" + b1 + "?x=1")),
            List.of(InitialBase.datasetRoot("s", "nosuchscheme://bucket/dir")),
            List.of(InitialBase.datasetRoot("", b1)),
            List.of(InitialBase.datasetRoot("x", b1), InitialBase.directory("x", b2)),
            List.of(InitialBase.datasetRoot("x", b1), InitialBase.directory("y", "file:" + b1)));
    List<String> reasons =
        List.of(
            "it is relative",
            "\".\" or \"..\" segments",
            "query or fragment",
            "its file system cannot be reached",
            "its name is blank",
            "another base has the name \"x\"",
            "another base has the same location");
    for (int i = 0; i < bad.size(); i++) {
      List<InitialBase> bases = bad.get(i);
      assertThatThrownBy(
              () ->
                  TargetBaseWriteOracleTest.write(
                      fresh, 0, 10, WriteOptions.of(WriteMode.CREATE).withInitialBases(bases)))
          .as("bases %s", bases)
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("Cannot create")
          .hasMessageContaining(reasons.get(i));
      assertThat(fresh).doesNotExist();
    }
    // a target base that is none of the initial ones
    assertThatThrownBy(
            () ->
                TargetBaseWriteOracleTest.write(
                    fresh,
                    0,
                    10,
                    WriteOptions.of(WriteMode.CREATE).withInitialBases(one).withTargetBase("b9")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("to base \"b9\"")
        .hasMessageContaining("b1=");
    assertThat(fresh).doesNotExist();
    assertThat(tmp.resolve("b1")).doesNotExist();
    assertThat(LanceOracle.countRows(BasePathsOracleTest.allocator, ds)).isEqualTo(20);
  }

  /**
   * The commit of a distributed create registers the bases its options give (tasks wrote at the
   * root).
   */
  @Test
  void aDistributedCreateRegistersItsBasesAtCommit(@TempDir Path tmp) throws IOException {
    Path ds = tmp.resolve("ds");
    String b1 = tmp.resolve("b1").toString();
    org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration();
    WriteOptions create =
        WriteOptions.of(WriteMode.CREATE)
            .withInitialBases(List.of(InitialBase.datasetRoot("b1", b1)));
    dev.lancelot.engine.schema.LanceSchema schema;
    List<dev.lancelot.engine.FragmentMetadata> written;
    try (org.apache.arrow.vector.VectorSchemaRoot batch =
        dev.lancelot.engine.testing.StandardData.generate(
            BasePathsOracleTest.allocator, 0, 80, BasePathsOracleTest.DIM, 3)) {
      schema = dev.lancelot.engine.schema.LanceSchema.fromArrow(batch.getSchema());
      written =
          dev.lancelot.engine.distributed.DistributedWrite.writeFragments(
              ds.toString(), conf, schema, List.of(batch).iterator(), create.resolvedFor(null));
    }
    try (Dataset d =
        dev.lancelot.engine.distributed.DistributedWrite.commit(
            ds.toString(), conf, schema, written, create, 0)) {
      assertThat(d.basePaths()).singleElement().satisfies(b -> assertThat(b.name()).contains("b1"));
      BasePathsOracleTest.assertReadsAsLance(d, ds);
    }
    BasePathsOracleTest.lanceWrite(ds, 100, 20, WriteParams.WriteMode.APPEND, null, List.of("b1"));
    assertThat(TargetBaseWriteOracleTest.files(tmp.resolve("b1/data"))).hasSize(1);
    assertThat(LanceOracle.countRows(BasePathsOracleTest.allocator, ds)).isEqualTo(100);
  }
}
