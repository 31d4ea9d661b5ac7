package dev.lancelot.engine;

import static dev.lancelot.engine.BranchWritesOracleTest.filesUnder;
import static dev.lancelot.engine.BranchWritesOracleTest.onBranch;
import static dev.lancelot.engine.TagsAndBranchesOracleTest.DIM;
import static dev.lancelot.engine.TagsAndBranchesOracleTest.history;
import static dev.lancelot.engine.TagsAndBranchesOracleTest.lanceAppend;
import static dev.lancelot.engine.TagsAndBranchesOracleTest.lanceOpen;
import static dev.lancelot.engine.TagsAndBranchesOracleTest.lanceRows;
import static dev.lancelot.engine.TagsAndBranchesOracleTest.ours;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.internal.format.ManifestFile;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFile;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.table.DatasetPaths;
import dev.lancelot.engine.internal.table.VersionLog;
import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.ClusteredData;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Ref;
import org.lance.cleanup.CleanupPolicy;
import org.lance.cleanup.RemovalStats;

/**
 * Cleanup of a branch (decision D62) against lance-core 7.0.0's cleanup of the same branch: the
 * same versions and files go, and afterwards each of them reads, row for row, every version, tag
 * and branch the other's cleanup kept.
 */
@org.junit.jupiter.api.Tag("oracle")
class BranchCleanupOracleTest {
  @BeforeAll
  static void setUp() {
    TagsAndBranchesOracleTest.setUp();
  }

  @AfterAll
  static void tearDown() {
    TagsAndBranchesOracleTest.tearDown();
  }

  static void append(Path dir, String branch, long firstId, int rows) {
    try (Dataset ds = Dataset.open(dir.toString(), onBranch(branch));
        VectorSchemaRoot batch =
            ClusteredData.generate(TagsAndBranchesOracleTest.allocator, firstId, rows, DIM, 4, 9);
        ArrowReader reader =
            ArrowStreams.readerOf(TagsAndBranchesOracleTest.allocator, List.of(batch))) {
      ds.append(reader).close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void delete(Path dir, String branch, String filter) {
    try (Dataset ds = Dataset.open(dir.toString(), onBranch(branch))) {
      ds.delete(filter).close();
    }
  }

  static void compact(Path dir, String branch) {
    try (Dataset ds = Dataset.open(dir.toString(), onBranch(branch))) {
      CompactionResult r =
          ds.compact(CompactionOptions.defaults().withMaterializeDeletionsThreshold(0.01));
      assertThat(r.fragmentsRemoved()).isPositive();
      r.dataset().close();
    }
  }

  /**
   * Main versions 1 to 3; branch {@code dev} from main 3 with its versions 4 to 9 (append, delete,
   * compaction, append, delete, compaction); with {@code refs}, tag {@code keep} on dev 4 and
   * branch {@code exp} from dev 5 with an append lance-core writes.
   */
  static void branchHistory(Path dir, boolean refs) {
    history(dir);
    try (Dataset ds = Dataset.open(dir.toString())) {
      ds.createBranch("dev", Optional.empty(), 3);
    }
    append(dir, "dev", 1000, 120); // 4
    delete(dir, "dev", "id % 5 = 1"); // 5
    if (refs) {
      try (Dataset ds = Dataset.open(dir.toString())) {
        ds.createBranch("exp", Optional.of("dev"), 5);
        ds.tags().create("keep", 4, Optional.of("dev"));
      }
      lanceAppend(dir.resolve("tree/exp").toString(), 5000, 30); // exp 6
    }
    compact(dir, "dev"); // 6
    append(dir, "dev", 2000, 80); // 7
    delete(dir, "dev", "id % 3 = 0"); // 8
    compact(dir, "dev"); // 9
  }

  /**
   * The refs {@link #branchHistory} with refs leaves after a cleanup of dev keeping one version.
   */
  static final List<String> REFS =
      List.of(
          "main:1",
          "main:2",
          "main:3",
          "dev:4",
          "dev:5",
          "dev:9",
          "dev",
          "tag keep",
          "exp:5",
          "exp");

  /**
   * What lance-core ({@code lance}) or lancelot reads for each ref: {@code <branch>:<version>},
   * {@code <branch>} (its latest), {@code tag <name>}.
   */
  static Map<String, List<List<Object>>> reads(Path dir, List<String> keys, boolean lance) {
    Map<String, List<List<Object>>> out = new LinkedHashMap<>();
    for (String k : keys) {
      if (k.startsWith("tag ")) {
        String tag = k.substring(4);
        out.put(
            k,
            lance
                ? lanceRows(dir, Ref.ofTag(tag))
                : ours(dir, OpenOptions.defaults().withTag(tag)));
        continue;
      }
      String[] p = k.split(":");
      boolean main = p[0].equals("main");
      OpenOptions options = main ? OpenOptions.defaults() : onBranch(p[0]);
      Ref ref;
      if (p.length == 2) {
        long v = Long.parseLong(p[1]);
        options = options.withVersion(v);
        ref = main ? Ref.ofMain(v) : Ref.ofBranch(p[0], v);
      } else {
        ref = main ? Ref.ofMain() : Ref.ofBranch(p[0]);
      }
      out.put(k, lance ? lanceRows(dir, ref) : ours(dir, options));
    }
    return out;
  }

  /**
   * Names for the files of a dataset that are the same in two datasets built by the same steps:
   * data files by the fragment and version that first list them, deletion files without their
   * random part, transaction files without their uuid. Data files are named from the manifests of
   * main and every branch as they are when called (so, before a cleanup).
   */
  static Map<String, String> dataFileNames(Path dir, List<String> branches) {
    Map<String, String> out = new LinkedHashMap<>();
    var io = new HadoopFileIO(HadoopFileIO.defaultConf());
    for (String branch : branches) {
      String prefix = branch.isEmpty() ? "" : "tree/" + branch + "/";
      DatasetPaths paths = DatasetPaths.of(dir.resolve(prefix.isEmpty() ? "." : prefix).toString());
      for (VersionLog.Entry e : VersionLog.list(io, paths)) {
        try (var in = io.newInputFile(e.location())) {
          for (DataFragment f : ManifestFile.read(in).manifest().getFragmentsList()) {
            for (DataFile d : f.getFilesList()) {
              if (!d.hasBaseId()) {
                out.putIfAbsent(
                    prefix + "data/" + d.getPath(),
                    prefix + "data/fragment-" + f.getId() + "@" + e.version());
              }
            }
          }
        }
      }
    }
    return out;
  }

  static TreeSet<String> normalized(Path dir, Map<String, String> dataFiles) throws IOException {
    TreeSet<String> out = new TreeSet<>();
    for (String f : filesUnder(dir)) {
      String n = dataFiles.get(f);
      if (n == null) {
        n =
            f.replaceAll("^(.*_deletions/\\d+-\\d+)-\\d+\\.arrow$", "$1.arrow")
                .replaceAll("^(.*_transactions/\\d+)-[0-9a-f-]+\\.txn$", "$1.txn");
      }
      out.add(n);
    }
    return out;
  }

  static long versionsOf(Path dir, String branch) {
    try (Dataset ds = Dataset.open(dir.toString(), onBranch(branch))) {
      return ds.versions().size();
    }
  }

  @Test
  void cleaningUpABranchRemovesWhatLancesCleanupRemoves(@TempDir Path tmp) throws IOException {
    Path ourDir = tmp.resolve("ours");
    Path lanceDir = tmp.resolve("lance");
    branchHistory(ourDir, true);
    branchHistory(lanceDir, true);
    List<String> branches = List.of("", "dev", "exp");
    Map<String, String> ourNames = dataFileNames(ourDir, branches);
    Map<String, String> lanceNames = dataFileNames(lanceDir, branches);
    assertThat(normalized(ourDir, ourNames)).isEqualTo(normalized(lanceDir, lanceNames));
    Map<String, List<List<Object>>> before = reads(ourDir, REFS, true);
    assertThat(before.get("dev")).isNotEqualTo(before.get("exp"));
    List<String> mainAndExp =
        filesUnder(ourDir).stream().filter(f -> !f.startsWith("tree/dev/")).sorted().toList();

    CleanupResult r;
    try (Dataset ds = Dataset.open(ourDir.toString(), onBranch("dev"))) {
      r = ds.cleanup(CleanupOptions.retainVersions(1));
    }
    RemovalStats theirs;
    try (org.lance.Dataset root = lanceOpen(lanceDir);
        org.lance.Dataset dev = root.checkout(Ref.ofBranch("dev"))) {
      theirs =
          dev.cleanupWithPolicy(
              CleanupPolicy.builder()
                  .withBeforeVersion(9)
                  .withErrorIfTaggedOldVersions(false)
                  .build());
    }
    // dev 4 (tag keep), 5 (exp starts there) and 9 (latest) stay; 3 (where dev starts), 6, 7, 8 go
    assertThat(r.versionsRemoved()).containsExactly(3L, 6L, 7L, 8L);
    // the first compaction's file and the second append's (only 6 to 8 read them), the deletion
    // files of 8, the transaction files of 3, 6, 7, 8
    assertThat(r.dataFilesRemoved()).isEqualTo(2);
    assertThat(r.deletionFilesRemoved()).isEqualTo(2);
    assertThat(r.transactionFilesRemoved()).isEqualTo(4);
    assertThat(r.unreferencedFilesRemoved()).isZero();
    // lance-core 7.0.0 removes the same versions, but lists only files older than the oldest
    // version it keeps (here the tagged 4), so the files of 6 to 8 stay behind although no version
    // references them any more (newer Lance lists everything when a kept version is older than a
    // removed one). Those orphans are the only difference: cleaning them up too leaves the two
    // datasets with the same files.
    assertThat(theirs.getOldVersions()).isEqualTo(4);
    try (Dataset dev = Dataset.open(lanceDir.toString(), onBranch("dev"))) {
      CleanupResult orphans =
          dev.cleanup(CleanupOptions.retainVersions(1).withDeleteUnverified(true));
      assertThat(orphans.versionsRemoved()).isEmpty();
      assertThat(orphans.unreferencedFilesRemoved()).isEqualTo(7); // 2 data, 2 deletion, 3 txn
      assertThat(orphans.dataFilesRemoved()).isEqualTo(2);
      assertThat(orphans.deletionFilesRemoved()).isEqualTo(2);
    }
    assertThat(normalized(lanceDir, lanceNames)).isEqualTo(normalized(ourDir, ourNames));
    // nothing outside the branch's directory was touched
    assertThat(filesUnder(ourDir).stream().filter(f -> !f.startsWith("tree/dev/")).sorted())
        .containsExactlyElementsOf(mainAndExp);

    assertThat(versionsOf(ourDir, "dev")).isEqualTo(3);
    // lance-core reads every kept version, tag and branch after our cleanup as before it, and we
    // read them after lance-core's cleanup as lance-core read them before
    assertThat(reads(ourDir, REFS, true)).isEqualTo(before);
    assertThat(reads(lanceDir, REFS, false)).isEqualTo(before);
    assertThat(reads(ourDir, REFS, false)).isEqualTo(before);
    assertThatThrownBy(() -> Dataset.open(ourDir.toString(), onBranch("dev").withVersion(7)))
        .isInstanceOf(DatasetNotFoundException.class)
        .hasMessageContaining("Cannot open version 7 of dataset")
        .hasMessageContaining("tree/dev");

    // the branch then keeps working for both: lance-core appends to it, we append after it
    lanceAppend(ourDir.resolve("tree/dev").toString(), 7000, 10);
    append(ourDir, "dev", 8000, 10);
    assertThat(ours(ourDir, onBranch("dev"))).isEqualTo(lanceRows(ourDir, Ref.ofBranch("dev")));
  }

  /**
   * Without tags or branches on dev, the versions kept are the newest ones, and lance-core 7.0.0's
   * cleanup of the branch and ours remove exactly the same versions and files.
   */
  @Test
  void withoutRefsOnTheBranchBothCleanupsRemoveTheSameFiles(@TempDir Path tmp) throws IOException {
    Path ourDir = tmp.resolve("ours");
    Path lanceDir = tmp.resolve("lance");
    branchHistory(ourDir, false);
    branchHistory(lanceDir, false);
    List<String> branches = List.of("", "dev");
    Map<String, String> ourNames = dataFileNames(ourDir, branches);
    Map<String, String> lanceNames = dataFileNames(lanceDir, branches);
    assertThat(normalized(ourDir, ourNames)).isEqualTo(normalized(lanceDir, lanceNames));
    List<String> refs = List.of("main:1", "main:2", "main:3", "dev:8", "dev:9", "dev");
    Map<String, List<List<Object>>> before = reads(ourDir, refs, true);
    CleanupResult r;
    try (Dataset ds = Dataset.open(ourDir.toString(), onBranch("dev"))) {
      r = ds.cleanup(CleanupOptions.retainVersions(2));
    }
    RemovalStats theirs;
    try (org.lance.Dataset root = lanceOpen(lanceDir);
        org.lance.Dataset dev = root.checkout(Ref.ofBranch("dev"))) {
      theirs = dev.cleanupWithPolicy(CleanupPolicy.builder().withBeforeVersion(8).build());
    }
    assertThat(r.versionsRemoved()).containsExactly(3L, 4L, 5L, 6L, 7L);
    assertThat(theirs.getOldVersions()).isEqualTo(5);
    assertThat(r.dataFilesRemoved()).isPositive().isEqualTo(theirs.getDataFilesRemoved());
    assertThat(r.deletionFilesRemoved()).isPositive().isEqualTo(theirs.getDeletionFilesRemoved());
    assertThat(r.transactionFilesRemoved()).isEqualTo(theirs.getTransactionFilesRemoved());
    assertThat(normalized(ourDir, ourNames)).isEqualTo(normalized(lanceDir, lanceNames));
    assertThat(reads(ourDir, refs, true)).isEqualTo(before);
    assertThat(reads(lanceDir, refs, false)).isEqualTo(before);
  }

  @Test
  void mainsCleanupAfterABranchCleanupKeepsWhatTheBranchStillReads(@TempDir Path dir)
      throws IOException {
    branchHistory(dir, true);
    Map<String, List<List<Object>>> before = reads(dir, REFS, true);
    try (Dataset dev = Dataset.open(dir.toString(), onBranch("dev"))) {
      dev.cleanup(CleanupOptions.retainVersions(1).withDeleteUnverified(true));
    }
    try (Dataset main = Dataset.open(dir.toString())) {
      CleanupResult r = main.cleanup(CleanupOptions.retainVersions(1).withDeleteUnverified(true));
      // main 3 is where dev starts; main 1 and 2 go
      assertThat(r.versionsRemoved()).containsExactly(1L, 2L);
    }
    before.remove("main:1");
    before.remove("main:2");
    List<String> kept = List.copyOf(before.keySet());
    assertThat(reads(dir, kept, true)).isEqualTo(before);
    assertThat(reads(dir, kept, false)).isEqualTo(before);
  }

  /**
   * Branch names may make one branch's directory lie inside another's ({@code dev/data} in dev's
   * {@code data/}, {@code dev/_indices} in its {@code _indices/}, {@code dev/x} beside them): a
   * cleanup of dev, even one deleting unverified files, leaves them whole.
   */
  @Test
  void branchesInsideTheBranchDirectoryAreNeverSwept(@TempDir Path dir) throws IOException {
    history(dir);
    try (Dataset ds = Dataset.open(dir.toString())) {
      ds.createBranch("dev", Optional.empty(), 3);
    }
    append(dir, "dev", 1000, 50); // 4
    for (String child : List.of("dev/data", "dev/_indices", "dev/x")) {
      try (Dataset ds = Dataset.open(dir.toString())) {
        ds.createBranch(child, Optional.of("dev"), 4);
      }
      append(dir, child, 3000, 20);
    }
    compact(dir, "dev"); // 5
    Map<String, List<List<Object>>> before = new LinkedHashMap<>();
    for (String child : List.of("dev/data", "dev/_indices", "dev/x", "dev")) {
      before.put(child, lanceRows(dir, Ref.ofBranch(child)));
    }
    List<String> childFiles =
        filesUnder(dir).stream()
            .filter(
                f ->
                    f.startsWith("tree/dev/data/")
                        || f.startsWith("tree/dev/_indices/")
                        || f.startsWith("tree/dev/x/"))
            .filter(f -> !f.startsWith("tree/dev/data/") || f.split("/").length > 4)
            .sorted()
            .toList();
    assertThat(childFiles).isNotEmpty();
    try (Dataset ds = Dataset.open(dir.toString(), onBranch("dev"))) {
      CleanupResult r = ds.cleanup(CleanupOptions.retainVersions(1).withDeleteUnverified(true));
      assertThat(r.versionsRemoved()).containsExactly(3L); // 4: the children start there
    }
    assertThat(filesUnder(dir)).containsAll(childFiles);
    for (Map.Entry<String, List<List<Object>>> e : before.entrySet()) {
      assertThat(lanceRows(dir, Ref.ofBranch(e.getKey()))).as(e.getKey()).isEqualTo(e.getValue());
      assertThat(ours(dir, onBranch(e.getKey()))).as(e.getKey()).isEqualTo(e.getValue());
    }
  }
}
