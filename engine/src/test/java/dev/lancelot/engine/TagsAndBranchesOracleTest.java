package dev.lancelot.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.ClusteredData;
import dev.lancelot.engine.testing.Rows;
import dev.lancelot.engine.vector.DistanceMetric;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.ReadOptions;
import org.lance.Ref;
import org.lance.WriteParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * Tags and branches against lance-core 7.0.0, both ways: tags and branches Lance writes read row
 * for row as Lance reads them, tags lancelot writes are Lance's tags, and bad names or references
 * are refused without changing anything.
 */
@org.junit.jupiter.api.Tag("oracle")
class TagsAndBranchesOracleTest {
  static final int DIM = 8;
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

  static void write(String location, long firstId, int rows, WriteMode mode) {
    try (VectorSchemaRoot batch = ClusteredData.generate(allocator, firstId, rows, DIM, 4, 9);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch))) {
      Dataset.write(location, reader, WriteOptions.of(mode)).close();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  static void lanceAppend(String location, long firstId, int rows) {
    try (VectorSchemaRoot batch = ClusteredData.generate(allocator, firstId, rows, DIM, 4, 9)) {
      org.lance.Dataset.write()
          .allocator(allocator)
          .reader(ArrowStreams.readerOf(allocator, List.of(batch)))
          .uri(location)
          .mode(WriteParams.WriteMode.APPEND)
          .execute()
          .close();
    }
  }

  /** Three versions written by lancelot: create, append, delete. */
  static void history(Path dir) {
    write(dir.toString(), 0, 200, WriteMode.CREATE);
    write(dir.toString(), 200, 100, WriteMode.APPEND);
    try (Dataset ds = Dataset.open(dir.toString())) {
      ds.delete("id % 7 = 0").close();
    }
  }

  static org.lance.Dataset lanceOpen(Path dir) {
    return org.lance.Dataset.open(allocator, dir.toString(), new ReadOptions.Builder().build());
  }

  static List<List<Object>> lanceRows(org.lance.Dataset ds, String filter) {
    List<List<Object>> out = new ArrayList<>();
    ScanOptions.Builder opts = new ScanOptions.Builder().columns(COLUMNS);
    if (filter != null) {
      opts.filter(filter);
    }
    try (LanceScanner scanner = ds.newScan(opts.build());
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        out.addAll(Rows.of(reader.getVectorSchemaRoot()));
      }
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
    return out;
  }

  static List<List<Object>> lanceRows(Path dir, Ref ref) {
    try (org.lance.Dataset root = lanceOpen(dir);
        org.lance.Dataset at = root.checkout(ref)) {
      return lanceRows(at, null);
    }
  }

  static List<List<Object>> ours(Dataset ds, String filter) {
    List<List<Object>> out = new ArrayList<>();
    Scanner scan = ds.newScan().columns(COLUMNS);
    if (filter != null) {
      scan = scan.filter(filter);
    }
    try (CloseableIterator<VectorSchemaRoot> it = scan.batches()) {
      while (it.hasNext()) {
        out.addAll(Rows.of(it.next()));
      }
    }
    return out;
  }

  static List<List<Object>> ours(Path dir, OpenOptions options) {
    try (Dataset ds = Dataset.open(dir.toString(), options)) {
      return ours(ds, null);
    }
  }

  static Map<String, String> tagsOf(org.lance.Dataset lance) {
    Map<String, String> out = new TreeMap<>();
    for (org.lance.Tag t : lance.tags().list()) {
      out.put(t.getName(), t.getBranch().orElse("main") + ":" + t.getVersion());
    }
    return out;
  }

  static Map<String, String> tagsOf(Dataset ds) {
    Map<String, String> out = new TreeMap<>();
    for (Tag t : ds.tags().list()) {
      out.put(t.name(), t.branch().orElse("main") + ":" + t.version());
    }
    return out;
  }

  @Test
  void tagsLanceCreatesReadAsLanceReadsThem(@TempDir Path dir) {
    history(dir);
    try (org.lance.Dataset lance = lanceOpen(dir)) {
      lance.tags().create("first", 1);
      lance.tags().create("before-delete", 2);
      lance.tags().create("latest", 3);
    }
    try (Dataset ds = Dataset.open(dir.toString());
        org.lance.Dataset lance = lanceOpen(dir)) {
      assertThat(tagsOf(ds))
          .isEqualTo(tagsOf(lance))
          .containsEntry("before-delete", "main:2")
          .hasSize(3);
      Tag t = ds.tags().get("before-delete");
      org.lance.Tag lt =
          lance.tags().list().stream()
              .filter(x -> x.getName().equals("before-delete"))
              .findFirst()
              .orElseThrow();
      assertThat(t.createdAt()).isEqualTo(lt.getCreatedAt());
      assertThat(t.updatedAt()).isEqualTo(lt.getUpdatedAt());
      assertThat(ds.tags().version("first")).isEqualTo(1);
    }
    for (String tag : List.of("first", "before-delete", "latest")) {
      try (Dataset ds = Dataset.open(dir.toString(), OpenOptions.defaults().withTag(tag))) {
        assertThat(ds.version()).isEqualTo(lanceTagVersion(dir, tag));
        List<List<Object>> expected = lanceRows(dir, Ref.ofTag(tag));
        assertThat(expected).isNotEmpty();
        assertThat(ours(ds, null)).as("tag %s", tag).isEqualTo(expected);
      }
    }
    assertThat(ours(dir, OpenOptions.defaults().withTag("before-delete")))
        .hasSize(300)
        .isNotEqualTo(ours(dir, OpenOptions.defaults().withTag("latest")));
  }

  static long lanceTagVersion(Path dir, String tag) {
    try (org.lance.Dataset lance = lanceOpen(dir)) {
      return lance.tags().getVersion(tag);
    }
  }

  @Test
  void tagsLancelotCreatesAreLancesTags(@TempDir Path dir) throws IOException {
    history(dir);
    Tag gold;
    try (Dataset ds = Dataset.open(dir.toString())) {
      gold = ds.tags().create("gold", 1);
      assertThat(gold.version()).isEqualTo(1);
      assertThat(gold.createdAt()).isPresent();
      ds.tags().create("v2.0-rc_1", 2);
    }
    try (org.lance.Dataset lance = lanceOpen(dir)) {
      assertThat(tagsOf(lance))
          .containsEntry("gold", "main:1")
          .containsEntry("v2.0-rc_1", "main:2");
      assertThat(lanceRows(dir, Ref.ofTag("gold")))
          .isEqualTo(ours(dir, OpenOptions.defaults().withVersion(1)));
      // Lance's own tag on the same version records the same manifest size
      lance.tags().create("lance-gold", 1);
      Map<String, Integer> sizes = new TreeMap<>();
      lance.tags().list().forEach(t -> sizes.put(t.getName(), t.getManifestSize()));
      assertThat(sizes.get("gold")).isEqualTo(sizes.get("lance-gold")).isPositive();
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      Tag moved = ds.tags().update("gold", 3);
      assertThat(moved.version()).isEqualTo(3);
      assertThat(moved.createdAt()).isEqualTo(gold.createdAt());
      assertThat(moved.updatedAt().orElseThrow()).isAfterOrEqualTo(gold.updatedAt().orElseThrow());
    }
    try (org.lance.Dataset lance = lanceOpen(dir)) {
      assertThat(lance.tags().getVersion("gold")).isEqualTo(3);
      assertThat(lanceRows(dir, Ref.ofTag("gold"))).isEqualTo(ours(dir, OpenOptions.defaults()));
      // Lance moves and deletes a tag lancelot created
      lance.tags().update("gold", 2);
      lance.tags().delete("v2.0-rc_1");
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThat(ds.tags().version("gold")).isEqualTo(2);
      assertThat(ds.tags().find("v2.0-rc_1")).isEmpty();
      ds.tags().delete("gold");
    }
    try (org.lance.Dataset lance = lanceOpen(dir)) {
      assertThat(tagsOf(lance)).containsOnlyKeys("lance-gold");
    }
  }

  @Test
  void badTagsAreRefusedAndChangeNothing(@TempDir Path dir) throws IOException {
    history(dir);
    try (Dataset ds = Dataset.open(dir.toString())) {
      ds.tags().create("kept", 1);
      byte[] before = Files.readAllBytes(dir.resolve("_refs/tags/kept.json"));

      assertThatThrownBy(() -> Dataset.open(dir.toString(), OpenOptions.defaults().withTag("nope")))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("Cannot find tag \"nope\"")
          .hasMessageContaining("its tags are [kept]");
      for (String bad : List.of("../x", "a/b", ".hidden", "x..y", "", "t.lock", "sp ace")) {
        assertThatThrownBy(() -> ds.tags().create(bad, 1))
            .as("tag name %s", bad)
            .isInstanceOf(InvalidInputException.class)
            .hasMessageContaining("Invalid tag name \"" + bad + "\"");
      }
      assertThatThrownBy(() -> OpenOptions.defaults().withTag("../../etc/passwd"))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("Invalid tag name");
      assertThatThrownBy(() -> ds.tags().create("kept", 2))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("Cannot create tag \"kept\"")
          .hasMessageContaining("already exists (on version 1)");
      assertThatThrownBy(() -> ds.tags().create("future", 99))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("Cannot tag version 99")
          .hasMessageContaining("no such version (versions: 1 to 3)");
      assertThatThrownBy(() -> ds.tags().create("onbranch", 1, Optional.of("nobranch")))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("Cannot find branch \"nobranch\"");
      assertThatThrownBy(() -> ds.tags().update("missing", 1))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("Cannot find tag \"missing\"");
      assertThatThrownBy(() -> ds.tags().delete("missing"))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("Cannot find tag \"missing\"");
      assertThatThrownBy(() -> ds.tags().update("kept", 42))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("no such version");
      assertThatThrownBy(
              () ->
                  Dataset.open(
                      dir.toString(), OpenOptions.defaults().withVersion(1).withTag("kept")))
          .hasMessageContaining("by tag and by a version (1) at once");

      assertThat(Files.readAllBytes(dir.resolve("_refs/tags/kept.json"))).isEqualTo(before);
      try (var files = Files.list(dir.resolve("_refs/tags"))) {
        assertThat(files.map(p -> p.getFileName().toString())).containsExactly("kept.json");
      }
      assertThat(dir.resolve("_refs/x.json")).doesNotExist();
    }
  }

  @Test
  void branchesLanceCreatesReadAsLanceReadsThem(@TempDir Path dir) {
    history(dir);
    try (Dataset ds = Dataset.open(dir.toString())) {
      VectorIndexes.create(
              ds,
              "vector",
              VectorIndexSpec.of(IndexType.IVF_FLAT, DistanceMetric.L2).withNumPartitions(2))
          .close();
    }
    // branch from version 3 (it has deletion files) and from version 4 (it has an index)
    try (org.lance.Dataset lance = lanceOpen(dir)) {
      lance.createBranch("feature/x", Ref.ofMain(3)).close();
      lance.createBranch("indexed", Ref.ofMain(4)).close();
    }
    String featureX = dir.resolve("tree/feature/x").toString();
    lanceAppend(featureX, 1000, 50);
    try (org.lance.Dataset root = lanceOpen(dir);
        org.lance.Dataset branch = root.checkout(Ref.ofBranch("feature/x"))) {
      branch.delete("id < 20");
    }
    try (org.lance.Dataset lance = lanceOpen(dir)) {
      lance.tags().create("exp", Ref.ofBranch("feature/x", 4));
    }
    write(dir.toString(), 5000, 10, WriteMode.APPEND); // main moves on

    try (Dataset ds =
        Dataset.open(dir.toString(), OpenOptions.defaults().withBranch("feature/x"))) {
      assertThat(ds.branch()).contains("feature/x");
      assertThat(ds.rootLocation()).isEqualTo(Dataset.open(dir.toString()).location());
      assertThat(ds.version()).isEqualTo(5);
      assertThat(ours(ds, null)).isEqualTo(lanceRows(dir, Ref.ofBranch("feature/x"))).hasSize(290);
      assertThat(ours(ds, "id >= 990"))
          .isEqualTo(lanceRowsOnBranch(dir, "feature/x", "id >= 990"))
          .hasSize(50);
      assertThat(ds.versions()).extracting(VersionInfo::version).containsExactly(3L, 4L, 5L);
      assertThat(ds.tags().list()).extracting(Tag::name).containsExactly("exp");
    }
    for (long v : new long[] {3, 4}) {
      assertThat(ours(dir, OpenOptions.defaults().withBranch("feature/x").withVersion(v)))
          .as("branch version %d", v)
          .isEqualTo(lanceRows(dir, Ref.ofBranch("feature/x", v)));
    }
    assertThat(ours(dir, OpenOptions.defaults().withTag("exp")))
        .isEqualTo(lanceRows(dir, Ref.ofTag("exp")))
        .hasSize(307);
    assertThat(ours(dir, OpenOptions.defaults().withBranch("main")))
        .isEqualTo(lanceRows(dir, Ref.ofMain()));

    try (Dataset ds = Dataset.open(dir.toString(), OpenOptions.defaults().withBranch("indexed"))) {
      assertThat(ours(ds, null)).isEqualTo(lanceRows(dir, Ref.ofBranch("indexed")));
      float[] q = new float[DIM];
      List<Long> ids;
      try (dev.lancelot.engine.query.VectorSearchResult r =
          dev.lancelot.engine.query.VectorSearch.search(
              ds,
              dev.lancelot.engine.query.VectorQuery.builder("vector")
                  .vector(q)
                  .k(5)
                  .nprobes(2)
                  .columns("id")
                  .build())) {
        ids = Rows.of(r.rows()).stream().map(row -> (Long) row.get(0)).toList();
      }
      assertThat(ids)
          .isEqualTo(
              dev.lancelot.engine.testing.LanceOracle.nearestIds(
                  allocator, dir.resolve("tree/indexed"), q, 5, 2, null, false));
    }

    try (Dataset ds = Dataset.open(dir.toString())) {
      List<Branch> branches = ds.branches();
      assertThat(branches).extracting(Branch::name).containsExactly("feature/x", "indexed");
      List<org.lance.Branch> theirs;
      try (org.lance.Dataset lance = lanceOpen(dir)) {
        theirs = lance.branches().list();
      }
      for (Branch b : branches) {
        org.lance.Branch l =
            theirs.stream().filter(x -> x.getName().equals(b.name())).findFirst().orElseThrow();
        assertThat(b.parentVersion()).isEqualTo(l.getParentVersion());
        assertThat(b.parentBranch()).isEqualTo(l.getParentBranch());
        assertThat(b.createdAt().getEpochSecond()).isEqualTo(l.getCreateAt());
      }
    }
  }

  static List<List<Object>> lanceRowsOnBranch(Path dir, String branch, String filter) {
    try (org.lance.Dataset root = lanceOpen(dir);
        org.lance.Dataset at = root.checkout(Ref.ofBranch(branch))) {
      return lanceRows(at, filter);
    }
  }

  @Test
  void badBranchesAreRefused(@TempDir Path dir) {
    history(dir);
    try (org.lance.Dataset lance = lanceOpen(dir)) {
      lance.createBranch("dev", Ref.ofMain(2)).close();
    }
    assertThatThrownBy(
            () -> Dataset.open(dir.toString(), OpenOptions.defaults().withBranch("nothere")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("Cannot find branch \"nothere\"")
        .hasMessageContaining("its branches are [dev]");
    for (String bad : List.of("../x", "a/../../b", "/abs", "a//b", "back\\slash", "x.lock", "")) {
      assertThatThrownBy(() -> OpenOptions.defaults().withBranch(bad))
          .as("branch name %s", bad)
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("Invalid branch name");
    }
    assertThatThrownBy(
            () ->
                Dataset.open(
                    dir.toString(), OpenOptions.defaults().withBranch("dev").withVersion(9)))
        .isInstanceOf(DatasetNotFoundException.class)
        .hasMessageContaining("Cannot open version 9 of dataset")
        .hasMessageContaining("tree/dev");
    try (Dataset ds = Dataset.open(dir.toString(), OpenOptions.defaults().withBranch("dev"))) {
      // cleanup of the branch (D62) keeps its only version
      assertThat(ds.cleanup(CleanupOptions.retainVersions(1)).versionsRemoved()).isEmpty();
      assertThat(ds.versions()).hasSize(1);
    }
  }

  @Test
  void refsInNewerLancesCatalogLayoutAreRefused(@TempDir Path dir) throws IOException {
    history(dir);
    Files.createDirectories(dir.resolve("_refs/catalog"));
    Files.writeString(dir.resolve("_refs/catalog/00000000000000000001.json"), "{}");
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThatThrownBy(() -> ds.tags().list())
          .hasMessageContaining("_refs/catalog/, a layout of newer Lance releases");
      assertThatThrownBy(() -> ds.cleanup(CleanupOptions.retainVersions(1)))
          .hasMessageContaining("_refs/catalog/");
      assertThat(ds.versions()).hasSize(3);
    }
  }
}
