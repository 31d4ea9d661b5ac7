package dev.lancelot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancelot.engine.WriteMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.ReadOptions;
import org.lance.Ref;

/**
 * {@code tags} and the {@code --tag} / {@code --branch} options: tags the CLI writes are lance-core
 * 7.0.0's tags, tags and branches lance-core writes show in {@code info} and open by name, bad
 * input is refused with exit code 2 and changes nothing.
 */
@Tag("oracle")
class TagsCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  static Map<String, Long> lanceTags(Path ds) {
    Map<String, Long> out = new TreeMap<>();
    try (RootAllocator allocator = new RootAllocator();
        org.lance.Dataset lance =
            org.lance.Dataset.open(allocator, ds.toString(), new ReadOptions.Builder().build())) {
      lance.tags().list().forEach(t -> out.put(t.getName(), t.getVersion()));
    }
    return out;
  }

  @Test
  void tagsWrittenByTheCliAreLancesAndLancesShowInInfo() throws Exception {
    Path ds = dir.resolve("ds");
    CliData.write(ds, 0, 100, WriteMode.CREATE, 100);
    CliData.write(ds, 100, 50, WriteMode.APPEND, 100);
    CliData.Result created = CliData.run("tags", "create", ds.toString(), "gold", "--version", "1");
    assertThat(created.code()).as(created.err()).isZero();
    assertThat(created.out()).contains("created gold", "main version 1");
    assertThat(CliData.run("tags", "create", ds.toString(), "head").code()).isZero();
    assertThat(lanceTags(ds)).isEqualTo(Map.of("gold", 1L, "head", 2L));

    try (RootAllocator allocator = new RootAllocator();
        org.lance.Dataset lance =
            org.lance.Dataset.open(allocator, ds.toString(), new ReadOptions.Builder().build())) {
      lance.createBranch("exp", Ref.ofMain(1)).close();
      lance.tags().create("lance-tag", 2);
    }
    CliData.Result listed = CliData.run("tags", "list", ds.toString(), "--json");
    JsonNode tags = JSON.readTree(listed.out()).get("tags");
    assertThat(tags).hasSize(3);
    assertThat(tags.get(1).get("name").asText()).isEqualTo("head");
    assertThat(tags.get(1).get("version").asLong()).isEqualTo(2);

    JsonNode info = JSON.readTree(CliData.run("info", ds.toString(), "--json").out());
    assertThat(info.get("tags").findValuesAsText("name"))
        .containsExactly("gold", "head", "lance-tag");
    assertThat(info.get("branches").get(0).get("name").asText()).isEqualTo("exp");
    assertThat(info.get("branches").get(0).get("parent_version").asLong()).isEqualTo(1);
    assertThat(info.get("branch").asText()).isEqualTo("main");

    JsonNode tagged =
        JSON.readTree(CliData.run("info", ds.toString(), "--tag", "gold", "--json").out());
    assertThat(tagged.get("version").asLong()).isEqualTo(1);
    assertThat(tagged.get("rows").asLong()).isEqualTo(100);
    JsonNode branch =
        JSON.readTree(CliData.run("info", ds.toString(), "--branch", "exp", "--json").out());
    assertThat(branch.get("branch").asText()).isEqualTo("exp");
    assertThat(branch.get("rows").asLong()).isEqualTo(100);
    assertThat(branch.get("location").asText()).endsWith("/tree/exp");
    assertThat(CliData.run("info", ds.toString(), "--branch", "exp").out())
        .contains("branch    exp", "exp                  from main version 1");

    CliData.Result onBranch =
        CliData.run("tags", "create", ds.toString(), "exp-head", "--branch", "exp");
    assertThat(onBranch.out()).contains("exp version 1");
    assertThat(CliData.run("tags", "update", ds.toString(), "gold", "--version", "2").out())
        .contains("moved gold", "main version 2");
    assertThat(CliData.run("tags", "delete", ds.toString(), "head").out()).contains("deleted head");
    assertThat(lanceTags(ds)).isEqualTo(Map.of("gold", 2L, "lance-tag", 2L, "exp-head", 1L));
  }

  @Test
  void badTagsAndBranchesAreRefusedAndChangeNothing() throws Exception {
    Path ds = dir.resolve("ds");
    CliData.write(ds, 0, 100, WriteMode.CREATE, 100);
    assertThat(CliData.run("tags", "create", ds.toString(), "gold").code()).isZero();
    byte[] before = Files.readAllBytes(ds.resolve("_refs/tags/gold.json"));

    CliData.Result escape = CliData.run("tags", "create", ds.toString(), "../x");
    assertThat(escape.code()).isEqualTo(2);
    assertThat(escape.err()).contains("Invalid tag name \"../x\"");
    CliData.Result again = CliData.run("tags", "create", ds.toString(), "gold", "--version", "1");
    assertThat(again.code()).isEqualTo(2);
    assertThat(again.err()).contains("Cannot create tag \"gold\"", "already exists");
    CliData.Result future = CliData.run("tags", "create", ds.toString(), "late", "--version", "9");
    assertThat(future.code()).isEqualTo(2);
    assertThat(future.err()).contains("Cannot tag version 9", "no such version");
    CliData.Result missing = CliData.run("tags", "delete", ds.toString(), "nope");
    assertThat(missing.code()).isEqualTo(2);
    assertThat(missing.err()).contains("Cannot find tag \"nope\"", "its tags are [gold]");
    CliData.Result unknownTag = CliData.run("info", ds.toString(), "--tag", "nope");
    assertThat(unknownTag.code()).isEqualTo(2);
    assertThat(unknownTag.err()).contains("Cannot find tag \"nope\"");
    CliData.Result badBranch = CliData.run("info", ds.toString(), "--branch", "../../etc");
    assertThat(badBranch.code()).isEqualTo(2);
    assertThat(badBranch.err()).contains("Invalid branch name \"../../etc\"");
    CliData.Result noBranch = CliData.run("info", ds.toString(), "--branch", "dev");
    assertThat(noBranch.code()).isEqualTo(2);
    assertThat(noBranch.err()).contains("Cannot find branch \"dev\"", "has no branches");
    CliData.Result action = CliData.run("tags", "rename", ds.toString());
    assertThat(action.code()).isEqualTo(2);
    assertThat(action.err()).contains("unknown tags action \"rename\"");

    assertThat(Files.readAllBytes(ds.resolve("_refs/tags/gold.json"))).isEqualTo(before);
    try (var files = Files.list(ds.resolve("_refs/tags"))) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly("gold.json");
    }
    assertThat(ds.resolve("x.json")).doesNotExist();
    assertThat(ds.getParent().resolve("x.json")).doesNotExist();
  }

  static Map<String, Long> lanceBranches(Path ds) {
    Map<String, Long> out = new TreeMap<>();
    try (RootAllocator allocator = new RootAllocator();
        org.lance.Dataset lance =
            org.lance.Dataset.open(allocator, ds.toString(), new ReadOptions.Builder().build())) {
      lance.branches().list().forEach(b -> out.put(b.getName(), b.getParentVersion()));
    }
    return out;
  }

  static long lanceRowsOnBranch(Path ds, String branch) {
    try (RootAllocator allocator = new RootAllocator();
        org.lance.Dataset lance =
            org.lance.Dataset.open(allocator, ds.toString(), new ReadOptions.Builder().build());
        org.lance.Dataset b = lance.checkout(Ref.ofBranch(branch))) {
      return b.countRows();
    }
  }

  @Test
  void branchesWrittenByTheCliAreLances() throws Exception {
    Path ds = dir.resolve("ds");
    CliData.write(ds, 0, 100, WriteMode.CREATE, 100);
    CliData.write(ds, 100, 50, WriteMode.APPEND, 100);
    CliData.Result created =
        CliData.run("branches", "create", ds.toString(), "exp", "--version", "1");
    assertThat(created.code()).as(created.err()).isZero();
    assertThat(created.out()).contains("created exp", "from main version 1");
    assertThat(CliData.run("branches", "create", ds.toString(), "head").code()).isZero();
    assertThat(CliData.run("tags", "create", ds.toString(), "one", "--version", "1").code())
        .isZero();
    assertThat(CliData.run("branches", "create", ds.toString(), "t/one", "--tag", "one").code())
        .isZero();
    CliData.Result child =
        CliData.run("branches", "create", ds.toString(), "exp/child", "--from", "exp", "--json");
    assertThat(child.code()).as(child.err()).isZero();
    JsonNode row = JSON.readTree(child.out()).get("branches").get(0);
    assertThat(row.get("parent_branch").asText()).isEqualTo("exp");
    assertThat(row.get("parent_version").asLong()).isEqualTo(1);
    assertThat(lanceBranches(ds))
        .isEqualTo(Map.of("exp", 1L, "head", 2L, "t/one", 1L, "exp/child", 1L));
    assertThat(lanceRowsOnBranch(ds, "exp/child")).isEqualTo(100);
    assertThat(lanceRowsOnBranch(ds, "head")).isEqualTo(150);
    JsonNode listed = JSON.readTree(CliData.run("branches", "list", ds.toString(), "--json").out());
    assertThat(listed.get("branches").findValuesAsText("name"))
        .containsExactly("exp", "exp/child", "head", "t/one");

    CliData.Result refused = CliData.run("branches", "delete", ds.toString(), "exp");
    assertThat(refused.code()).isEqualTo(2);
    assertThat(refused.err()).contains("branches [exp/child] were created from it");
    CliData.Result bad =
        CliData.run("branches", "create", ds.toString(), "x", "--tag", "one", "--version", "1");
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.err()).contains("give --tag, or --version and --from, not both");
    assertThat(CliData.run("branches", "create", ds.toString(), "../x").err())
        .contains("Invalid branch name");
    CliData.Result deleted = CliData.run("branches", "delete", ds.toString(), "exp/child");
    assertThat(deleted.code()).as(deleted.err()).isZero();
    assertThat(deleted.out()).contains("deleted exp/child");
    assertThat(CliData.run("branches", "delete", ds.toString(), "exp").code()).isZero();
    assertThat(lanceBranches(ds)).isEqualTo(Map.of("head", 2L, "t/one", 1L));
    assertThat(Files.exists(ds.resolve("tree/exp"))).isFalse();
  }

  @Test
  void cleanupOfABranchRemovesItsOwnOldVersions() throws Exception {
    Path ds = dir.resolve("ds");
    CliData.write(ds, 0, 100, WriteMode.CREATE, 100);
    assertThat(CliData.run("branches", "create", ds.toString(), "dev").code()).isZero();
    CliData.write(ds.resolve("tree/dev"), 100, 40, WriteMode.APPEND, 100); // dev 2
    CliData.write(ds.resolve("tree/dev"), 140, 40, WriteMode.OVERWRITE, 100); // dev 3
    CliData.Result r =
        CliData.run(
            "cleanup", ds.toString(), "--branch", "dev", "--retain-versions", "1", "--json");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode json = JSON.readTree(r.out());
    assertThat(json.get("dataset").asText()).endsWith("tree/dev");
    assertThat(json.get("versions_removed").toString()).isEqualTo("[1,2]");
    // the appended file went; main's file (which dev 1 and 2 reached) stays for main
    assertThat(json.get("data_files_removed").asLong()).isEqualTo(1);
    assertThat(lanceRowsOnBranch(ds, "dev")).isEqualTo(40);
    try (RootAllocator allocator = new RootAllocator();
        org.lance.Dataset lance =
            org.lance.Dataset.open(allocator, ds.toString(), new ReadOptions.Builder().build())) {
      assertThat(lance.countRows()).isEqualTo(100);
    }
    CliData.Result bad =
        CliData.run("cleanup", ds.toString(), "--branch", "nothere", "--retain-versions", "1");
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.err()).contains("Cannot find branch \"nothere\"");
  }
}
