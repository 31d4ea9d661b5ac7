package dev.lancelot.engine;

import static dev.lancelot.engine.TagsAndBranchesOracleTest.DIM;
import static dev.lancelot.engine.TagsAndBranchesOracleTest.history;
import static dev.lancelot.engine.TagsAndBranchesOracleTest.lanceAppend;
import static dev.lancelot.engine.TagsAndBranchesOracleTest.lanceOpen;
import static dev.lancelot.engine.TagsAndBranchesOracleTest.lanceRows;
import static dev.lancelot.engine.TagsAndBranchesOracleTest.ours;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.internal.format.ManifestFile;
import dev.lancelot.engine.internal.format.proto.TableProtos.Manifest;
import dev.lancelot.engine.internal.table.DatasetPaths;
import dev.lancelot.engine.internal.table.VersionLog;
import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.ClusteredData;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.testing.Rows;
import dev.lancelot.engine.vector.DistanceMetric;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Ref;

/**
 * Branches lancelot creates, writes to and deletes, against lance-core 7.0.0 both ways: the branch
 * lancelot creates is the one Lance creates on the same version (same ref, same manifest but for
 * the timestamp, transaction and name), Lance lists it, reads it row for row and writes to it;
 * lancelot's commits on a branch land under {@code tree/<name>/} as Lance's do and never touch
 * main.
 */
@org.junit.jupiter.api.Tag("oracle")
class BranchWritesOracleTest {
  static final ObjectMapper JSON = new ObjectMapper();

  @BeforeAll
  static void setUp() {
    TagsAndBranchesOracleTest.setUp();
  }

  @AfterAll
  static void tearDown() {
    TagsAndBranchesOracleTest.tearDown();
  }

  static OpenOptions onBranch(String name) {
    return OpenOptions.defaults().withBranch(name);
  }

  /** The first (or only) manifest of the branch, without what differs between two creations. */
  static Manifest comparable(Path dir, String branch, long version) {
    DatasetPaths paths = DatasetPaths.of(dir.resolve("tree/" + branch).toString());
    var io = new HadoopFileIO(HadoopFileIO.defaultConf());
    VersionLog.Entry e = VersionLog.find(io, paths, version).orElseThrow();
    try (var in = io.newInputFile(e.location())) {
      return ManifestFile.read(in).manifest().toBuilder()
          .clearTimestamp()
          .clearTransactionFile()
          .clearBranch()
          .clearWriterVersion()
          .build();
    }
  }

  static JsonNode ref(Path dir, String branch) throws IOException {
    return JSON.readTree(
        Files.readAllBytes(dir.resolve("_refs/branches/" + branch.replace("/", "%2F") + ".json")));
  }

  static List<String> lanceBranchNames(Path dir) {
    try (org.lance.Dataset lance = lanceOpen(dir)) {
      return lance.branches().list().stream().map(org.lance.Branch::getName).sorted().toList();
    }
  }

  static List<String> filesUnder(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile).map(p -> dir.relativize(p).toString()).toList();
    }
  }

  @Test
  void branchesLancelotCreatesAreTheBranchesLanceCreates(@TempDir Path dir) throws IOException {
    history(dir); // versions 1 to 3; version 3 has deletion files
    try (Dataset ds = Dataset.open(dir.toString())) {
      Branch dev = ds.createBranch("dev", Optional.empty(), 2);
      assertThat(dev.parentVersion()).isEqualTo(2);
      assertThat(dev.parentBranch()).isEmpty();
      ds.createBranch("feature/x", Optional.of("main"), 3);
      ds.tags().create("t2", 2);
      ds.createBranchFromTag("from-tag", "t2");
    }
    try (org.lance.Dataset lance = lanceOpen(dir)) {
      lance.createBranch("lance-dev", Ref.ofMain(2)).close();
      lance.createBranch("lance-x", Ref.ofMain(3)).close();
    }
    // the same manifest as Lance's own branch of the same version, the same ref
    assertThat(comparable(dir, "dev", 2)).isEqualTo(comparable(dir, "lance-dev", 2));
    assertThat(comparable(dir, "from-tag", 2)).isEqualTo(comparable(dir, "lance-dev", 2));
    assertThat(comparable(dir, "feature/x", 3)).isEqualTo(comparable(dir, "lance-x", 3));
    assertThat(comparable(dir, "feature/x", 3).getBasePathsList()).hasSize(1);
    for (String[] pair : new String[][] {{"dev", "lance-dev"}, {"feature/x", "lance-x"}}) {
      JsonNode ours = ref(dir, pair[0]);
      JsonNode theirs = ref(dir, pair[1]);
      for (String field : List.of("parentBranch", "parentVersion", "manifestSize", "metadata")) {
        assertThat(ours.get(field)).as("%s %s", pair[0], field).isEqualTo(theirs.get(field));
      }
      assertThat(ours.path("identifier").path("version_mapping")).hasSize(1);
      assertThat(ours.path("identifier").path("version_mapping").get(0).get(0))
          .isEqualTo(theirs.path("identifier").path("version_mapping").get(0).get(0));
    }
    assertThat(lanceBranchNames(dir))
        .containsExactly("dev", "feature/x", "from-tag", "lance-dev", "lance-x");
    // Lance reads our branches as it reads its own, and as we read them
    assertThat(lanceRows(dir, Ref.ofBranch("dev")))
        .isEqualTo(lanceRows(dir, Ref.ofMain(2)))
        .isEqualTo(ours(dir, onBranch("dev")))
        .hasSize(300);
    assertThat(lanceRows(dir, Ref.ofBranch("feature/x")))
        .isEqualTo(lanceRows(dir, Ref.ofMain(3)))
        .isEqualTo(ours(dir, onBranch("feature/x")));
    // Lance writes to our branch; we read its version, and it reads ours
    lanceAppend(dir.resolve("tree/dev").toString(), 1000, 20);
    assertThat(ours(dir, onBranch("dev")))
        .isEqualTo(lanceRows(dir, Ref.ofBranch("dev")))
        .hasSize(320);
    // a branch of a branch version that has files of its own (under tree/dev/data)
    try (Dataset ds = Dataset.open(dir.toString())) {
      ds.createBranch("dev/next", Optional.of("dev"), 3);
    }
    Manifest next = comparable(dir, "dev/next", 3);
    assertThat(next.getBasePathsList()).hasSize(2);
    assertThat(next.getBasePaths(1).getName()).isEqualTo("dev");
    assertThat(lanceRows(dir, Ref.ofBranch("dev/next")))
        .isEqualTo(lanceRows(dir, Ref.ofBranch("dev", 3)))
        .isEqualTo(ours(dir, onBranch("dev/next")))
        .hasSize(320);
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThat(ds.branches())
          .filteredOn(b -> b.name().equals("dev/next"))
          .singleElement()
          .satisfies(b -> assertThat(b.parentBranch()).contains("dev"));
      assertThat(ds.versions()).hasSize(3); // main untouched
    }
  }

  @Test
  void writesToABranchAreLancesAndLeaveMainAlone(@TempDir Path dir) throws IOException {
    history(dir);
    List<String> mainFiles;
    List<List<Object>> mainRows = ours(dir, OpenOptions.defaults());
    try (Dataset ds = Dataset.open(dir.toString())) {
      ds.createBranch("dev", Optional.empty(), 3);
    }
    mainFiles = filesUnder(dir).stream().filter(f -> !f.startsWith("tree/")).toList();

    try (Dataset ds = Dataset.open(dir.toString(), onBranch("dev"))) {
      try (VectorSchemaRoot batch =
              ClusteredData.generate(TagsAndBranchesOracleTest.allocator, 2000, 60, DIM, 4, 9);
          ArrowReader reader =
              ArrowStreams.readerOf(TagsAndBranchesOracleTest.allocator, List.of(batch))) {
        ds.append(reader).close();
      }
    }
    assertThat(ours(dir, onBranch("dev"))).isEqualTo(lanceRows(dir, Ref.ofBranch("dev")));
    try (Dataset ds = Dataset.open(dir.toString(), onBranch("dev"))) {
      assertThat(ds.version()).isEqualTo(4);
      assertThat(ds.branch()).contains("dev");
      ds.delete("id % 5 = 1").close();
    }
    assertThat(ours(dir, onBranch("dev"))).isEqualTo(lanceRows(dir, Ref.ofBranch("dev")));
    try (Dataset ds = Dataset.open(dir.toString(), onBranch("dev"))) {
      CompactionResult r =
          ds.compact(CompactionOptions.defaults().withMaterializeDeletionsThreshold(0.01));
      assertThat(r.fragmentsRemoved()).isPositive();
      r.dataset().close();
    }
    assertThat(ours(dir, onBranch("dev")))
        .isEqualTo(lanceRows(dir, Ref.ofBranch("dev")))
        .hasSize(lanceRows(dir, Ref.ofBranch("dev")).size());
    try (Dataset ds = Dataset.open(dir.toString(), onBranch("dev"))) {
      VectorIndexes.create(
              ds,
              "vector",
              VectorIndexSpec.of(IndexType.IVF_FLAT, DistanceMetric.L2).withNumPartitions(2))
          .close();
    }
    try (Dataset ds = Dataset.open(dir.toString(), onBranch("dev"))) {
      assertThat(ds.version()).isEqualTo(7);
      float[] q = new float[DIM];
      List<Long> ids = new ArrayList<>();
      try (dev.lancelot.engine.query.VectorSearchResult r =
          dev.lancelot.engine.query.VectorSearch.search(
              ds,
              dev.lancelot.engine.query.VectorQuery.builder("vector")
                  .vector(q)
                  .k(5)
                  .nprobes(2)
                  .columns("id")
                  .build())) {
        Rows.of(r.rows()).forEach(row -> ids.add((Long) row.get(0)));
      }
      assertThat(ids)
          .hasSize(5)
          .isEqualTo(
              LanceOracle.nearestIds(
                  TagsAndBranchesOracleTest.allocator,
                  dir.resolve("tree/dev"),
                  q,
                  5,
                  2,
                  null,
                  false));
    }
    // every new file is under tree/dev/, main's files and versions are as they were
    assertThat(filesUnder(dir).stream().filter(f -> !f.startsWith("tree/")).toList())
        .containsExactlyInAnyOrderElementsOf(mainFiles);
    assertThat(filesUnder(dir.resolve("tree/dev")))
        .anyMatch(f -> f.startsWith("data/"))
        .anyMatch(f -> f.startsWith("_indices/"))
        .anyMatch(f -> f.startsWith("_versions/"));
    assertThat(ours(dir, OpenOptions.defaults())).isEqualTo(mainRows);
    assertThat(lanceRows(dir, Ref.ofMain())).isEqualTo(mainRows);
    // Lance's own commits continue from ours
    lanceAppend(dir.resolve("tree/dev").toString(), 9000, 7);
    try (Dataset ds = Dataset.open(dir.toString(), onBranch("dev"))) {
      assertThat(ds.version()).isEqualTo(8);
      assertThat(ours(ds, null)).isEqualTo(lanceRows(dir, Ref.ofBranch("dev")));
      assertThat(ours(ds, "id >= 9000")).hasSize(7);
    }
    // a restore on the branch commits there too
    try (Dataset ds = Dataset.open(dir.toString(), onBranch("dev"));
        Dataset restored = ds.restore(4)) {
      assertThat(restored.version()).isEqualTo(9);
      assertThat(restored.location()).endsWith("/tree/dev");
    }
    assertThat(lanceRows(dir, Ref.ofBranch("dev")))
        .isEqualTo(lanceRows(dir, Ref.ofBranch("dev", 4)))
        .isEqualTo(ours(dir, onBranch("dev")));
    assertThat(lanceRows(dir, Ref.ofMain())).isEqualTo(mainRows);
  }

  @Test
  void deletingBranchesFollowsLancesRules(@TempDir Path dir) throws IOException {
    history(dir);
    try (Dataset ds = Dataset.open(dir.toString())) {
      ds.createBranch("a", Optional.empty(), 1);
      ds.createBranch("a/b", Optional.of("a"), 1);
      ds.createBranch("a/c", Optional.empty(), 2);
      ds.createBranch("solo/x", Optional.empty(), 2);
      ds.tags().create("on-c", 2, Optional.of("a/c"));

      assertThatThrownBy(() -> ds.deleteBranch("a"))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("Cannot delete branch \"a\"")
          .hasMessageContaining("branches [a/b] were created from it");
      assertThatThrownBy(() -> ds.deleteBranch("a/c"))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("tags [on-c] point to its versions");
      assertThatThrownBy(() -> ds.deleteBranch("nope"))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("Cannot find branch \"nope\"");
      assertThat(ds.branches()).hasSize(4);

      ds.deleteBranch("a/b"); // a and a/c remain: only tree/a/b goes
      assertThat(dir.resolve("tree/a/b")).doesNotExist();
      assertThat(dir.resolve("tree/a/_versions")).exists();
      assertThat(dir.resolve("tree/a/c/_versions")).exists();
      ds.deleteBranch("a"); // a/c lives inside tree/a: nothing is removed
      assertThat(dir.resolve("tree/a/c/_versions")).exists();
      ds.deleteBranch("solo/x"); // no branch shares tree/solo: all of it goes
      assertThat(dir.resolve("tree/solo")).doesNotExist();
    }
    assertThat(lanceBranchNames(dir)).containsExactly("a/c");
    assertThat(lanceRows(dir, Ref.ofBranch("a/c"))).isEqualTo(lanceRows(dir, Ref.ofMain(2)));
    // Lance deletes a branch lancelot created, and lancelot one Lance created
    try (Dataset ds = Dataset.open(dir.toString())) {
      ds.createBranch("mine", Optional.empty(), 3);
    }
    try (org.lance.Dataset lance = lanceOpen(dir)) {
      lance.branches().delete("mine");
      lance.createBranch("theirs", Ref.ofMain(1)).close();
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      ds.deleteBranch("theirs");
      assertThat(ds.branches()).extracting(Branch::name).containsExactly("a/c");
    }
    // a branch deleted and created again under its name: the cached versions of the old are gone
    String again;
    try (Dataset ds = Dataset.open(dir.toString())) {
      ds.createBranch("again", Optional.empty(), 3);
    }
    try (Dataset ds = Dataset.open(dir.toString(), onBranch("again"))) {
      again = ds.location();
    }
    long rowsOfThree = Dataset.openCached(again, 3, null).countRows();
    try (Dataset ds = Dataset.open(dir.toString())) {
      ds.deleteBranch("again");
      ds.createBranch("again", Optional.empty(), 3);
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      ds.deleteBranch("again");
      ds.tags().create("two", 2);
    }
    try (org.lance.Dataset lance = lanceOpen(dir)) {
      lance.createBranch("again", Ref.ofMain(2)).close();
      lance.tags().delete("two");
    }
    // Lance's branch is at version 2 now; version 3 of the old one must not be served from memory
    assertThatThrownBy(() -> Dataset.openCached(again, 3, null))
        .isInstanceOf(DatasetNotFoundException.class);
    assertThat(rowsOfThree).isPositive();
    assertThat(dir.resolve("tree/mine")).doesNotExist();
    assertThat(dir.resolve("tree/theirs")).doesNotExist();
  }

  @Test
  void badBranchCreationsAreRefusedAndChangeNothing(@TempDir Path dir) throws IOException {
    history(dir);
    try (Dataset ds = Dataset.open(dir.toString())) {
      ds.createBranch("dev", Optional.empty(), 1);
      List<String> before = filesUnder(dir);
      assertThatThrownBy(() -> ds.createBranch("dev", Optional.empty(), 2))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("Cannot create branch \"dev\"")
          .hasMessageContaining("already exists (created from version 1)");
      assertThatThrownBy(() -> ds.createBranch("new", Optional.empty(), 9))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("from version 9 of the main branch: no such version")
          .hasMessageContaining("versions: 1 to 3");
      assertThatThrownBy(() -> ds.createBranch("new", Optional.of("nobranch"), 1))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("Cannot find branch \"nobranch\"");
      assertThatThrownBy(() -> ds.createBranchFromTag("new", "notag"))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("Cannot find tag \"notag\"");
      for (String bad : List.of("../x", "main", "/abs", "a//b", "x.lock", "")) {
        assertThatThrownBy(() -> ds.createBranch(bad, Optional.empty(), 1))
            .as("branch name %s", bad)
            .isInstanceOf(InvalidInputException.class)
            .hasMessageContaining("Invalid branch name");
      }
      // a stale directory of an earlier branch of that name: refused, the ref is not left behind
      Files.createDirectories(dir.resolve("tree/stale/_versions"));
      Files.copy(
          dir.resolve("tree/dev/_versions").toFile().listFiles()[0].toPath(),
          dir.resolve("tree/stale/_versions/18446744073709551614.manifest"));
      assertThatThrownBy(() -> ds.createBranch("stale", Optional.empty(), 1))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("already exists (files of an earlier branch");
      assertThat(dir.resolve("_refs/branches/stale.json")).doesNotExist();
      assertThat(filesUnder(dir).stream().filter(f -> !f.startsWith("tree/stale")).toList())
          .containsExactlyInAnyOrderElementsOf(before);
      assertThat(ds.branches()).extracting(Branch::name).containsExactly("dev");
    }
  }
}
