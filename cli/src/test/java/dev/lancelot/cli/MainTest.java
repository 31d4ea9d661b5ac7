package dev.lancelot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.query.eval.QuerySets;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.testing.StandardData;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.WriteParams;

/** The command-line tool: output, JSON, exit codes and one-line errors. */
@Tag("oracle")
class MainTest {
  static Path dir;
  static String q;

  @BeforeAll
  static void setUp() throws Exception {
    dir = Files.createTempDirectory("cli");
    try (var a = new RootAllocator()) {
      LanceOracle.write(a, dir, 0, 500, 4, 1, WriteParams.WriteMode.CREATE, 200);
    }
    q = "0.1,0.2,0.3,0.4";
  }

  record Run(int code, String out, String err) {}

  static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            List.of(args),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void infoHumanAndJson() throws Exception {
    Run human = run("info", dir.toString());
    assertThat(human.code()).isZero();
    assertThat(human.out())
        .contains("version   1 (format lance 2.1), 500 rows")
        .contains("fragments")
        .contains("indexes   (none)");
    Run json = run("info", dir.toString(), "--json");
    JsonNode node = JsonRows.JSON.readTree(json.out());
    assertThat(node.get("version").asInt()).isEqualTo(1);
    assertThat(node.get("fragments")).hasSize(3);
  }

  @Test
  void infoShowsTheBasePathsOfAMultiBaseDataset(@TempDir Path tmp) throws Exception {
    Path ds = tmp.resolve("ds");
    Path b1 = tmp.resolve("b1");
    try (var a = new RootAllocator();
        var batch = StandardData.generate(a, 0, 300, 4, 1)) {
      org.lance.Dataset.write()
          .allocator(a)
          .reader(ArrowStreams.readerOf(a, List.of(batch)))
          .uri(ds.toString())
          .mode(WriteParams.WriteMode.CREATE)
          .maxRowsPerFile(100)
          .initialBases(
              List.of(new org.lance.BasePath(1, Optional.of("cold"), b1.toString(), true)))
          .targetBases(List.of("cold"))
          .execute()
          .close();
    }
    Run human = run("info", ds.toString());
    assertThat(human.code()).isZero();
    assertThat(human.out())
        .contains("version   1 (format lance 2.1), 300 rows")
        .contains("base 1    " + HadoopFileIO.qualify(b1.toString()) + " (cold), a dataset root");
    JsonNode node = JsonRows.JSON.readTree(run("info", ds.toString(), "--json").out());
    assertThat(node.get("bases")).hasSize(1);
    assertThat(node.get("bases").get(0).get("name").asText()).isEqualTo("cold");
    assertThat(node.get("bases").get(0).get("dataset_root").asBoolean()).isTrue();
    assertThat(node.get("rows").asLong()).isEqualTo(300);
  }

  @Test
  void infoSaysWhenADatasetUsesStableRowIds(@TempDir Path tmp) throws Exception {
    Path ds = tmp.resolve("ds");
    try (var a = new RootAllocator();
        var batch = StandardData.generate(a, 0, 50, 4, 1)) {
      org.lance.Dataset.write()
          .allocator(a)
          .reader(ArrowStreams.readerOf(a, List.of(batch)))
          .uri(ds.toString())
          .mode(WriteParams.WriteMode.CREATE)
          .enableStableRowIds(true)
          .execute()
          .close();
    }
    assertThat(run("info", ds.toString()).out()).contains("row ids   stable");
    JsonNode node = JsonRows.JSON.readTree(run("info", ds.toString(), "--json").out());
    assertThat(node.get("stable_row_ids").asBoolean()).isTrue();
    JsonNode plain = JsonRows.JSON.readTree(run("info", dir.toString(), "--json").out());
    assertThat(plain.get("stable_row_ids").asBoolean()).isFalse();
    assertThat(run("info", dir.toString()).out()).doesNotContain("row ids");
  }

  @Test
  void infoShowsBlobColumnsOfLanceWrittenDatasets(@TempDir Path tmp) throws Exception {
    try (var a = new RootAllocator()) {
      for (String version : List.of("2.1", "2.2")) {
        Path ds = dev.lancelot.engine.dataset.BlobOracleTest.write(tmp, version, a);
        Run human = run("info", ds.toString());
        assertThat(human.code()).as(human.out()).isZero();
        assertThat(human.out())
            .contains("12 rows", version.equals("2.2") ? "b: blob v2" : "b: blob (large_binary)");
        JsonNode node = JsonRows.JSON.readTree(run("info", ds.toString(), "--json").out());
        assertThat(node.get("rows").asLong())
            .isEqualTo(dev.lancelot.engine.dataset.BlobOracleTest.SIZES.length);
      }
    }
  }

  @Test
  void searchPrintsRowsAndJsonHasRowsAndPlan() throws Exception {
    Run human =
        run(
            "search",
            dir.toString(),
            "--column",
            "vector",
            "--q",
            q,
            "--k",
            "3",
            "--columns",
            "id",
            "--no-index");
    assertThat(human.code()).isZero();
    assertThat(human.out().lines().toList())
        .hasSize(4)
        .first()
        .asString()
        .contains("id")
        .contains("_distance");
    Run json =
        run(
            "search",
            dir.toString(),
            "--column",
            "vector",
            "--q",
            q,
            "--k",
            "3",
            "--with-row-id",
            "--json");
    JsonNode node = JsonRows.JSON.readTree(json.out());
    assertThat(node.get("rows")).hasSize(3);
    assertThat(node.get("rows").get(0).has("_distance")).isTrue();
    assertThat(node.get("rows").get(0).has("_rowid")).isTrue();
    assertThat(node.get("plan").asText()).contains("TopK: k=3");
  }

  @Test
  void batchQueriesFromAnFvecsFilePrintOneObjectPerQuery() throws Exception {
    Path file = Files.createTempFile("q", ".fvecs");
    QuerySets.writeFvecs(file, new float[][] {{1, 2, 3, 4}, {-1, 0, 1, 0}});
    Run json =
        run(
            "search",
            dir.toString(),
            "--column",
            "vector",
            "--q-file",
            file.toString(),
            "--k",
            "2",
            "--json");
    List<String> lines = json.out().lines().toList();
    assertThat(lines).hasSize(2);
    assertThat(JsonRows.JSON.readTree(lines.get(1)).get("query_index").asInt()).isEqualTo(1);
    assertThat(JsonRows.JSON.readTree(lines.get(1)).get("rows")).hasSize(2);
  }

  @Test
  void explainAndAnalyze() {
    Run explain =
        run(
            "explain",
            dir.toString(),
            "--column",
            "vector",
            "--q",
            q,
            "--k",
            "3",
            "--filter",
            "tenant_id = 4",
            "--prefilter");
    assertThat(explain.out())
        .contains("FlatKnn: unit=flat-0")
        .contains("filter=tenant_id = 4 (prefilter)");
    Run analyze = run("analyze", dir.toString(), "--column", "vector", "--q", q, "--k", "3");
    assertThat(analyze.out()).contains("rows_scanned=200").contains("-- rows returned: 3");
  }

  @Test
  void recallTable() throws Exception {
    Path file = Files.createTempFile("q", ".fvecs");
    QuerySets.writeFvecs(file, new float[][] {{1, 2, 3, 4}, {-1, 0, 1, 0}});
    Run r =
        run(
            "recall",
            dir.toString(),
            "--q-file",
            file.toString(),
            "--k",
            "5",
            "--grid",
            "use_index=false",
            "--filter",
            "tenant_id < 20");
    assertThat(r.code()).isZero();
    assertThat(r.out())
        .contains("recall@5 over 2 queries")
        .contains("no filter")
        .contains("1.0000");
  }

  @Test
  void filtersTakeArithmeticAndFunctions() throws Exception {
    Run json =
        run(
            "search",
            dir.toString(),
            "--column",
            "vector",
            "--q",
            q,
            "--k",
            "5",
            "--columns",
            "id",
            "--filter",
            "id % 7 = 3 AND abs(tenant_id - 1) >= 0",
            "--prefilter",
            "--no-index",
            "--json");
    assertThat(json.code()).isZero();
    JsonNode rows = JsonRows.JSON.readTree(json.out()).get("rows");
    assertThat(rows).hasSize(5);
    for (JsonNode row : rows) {
      assertThat(row.get("id").asLong() % 7).isEqualTo(3);
    }
    Run divide =
        run(
            "search",
            dir.toString(),
            "--column",
            "vector",
            "--q",
            q,
            "--k",
            "5",
            "--filter",
            "id / (id - id) = 1",
            "--prefilter",
            "--no-index");
    assertThat(divide.code()).isEqualTo(2);
    assertThat(divide.err().trim().lines().toList())
        .hasSize(1)
        .first()
        .asString()
        .contains(
            "Cannot evaluate filter \"id / (id - id) = 1\": division by zero in id / (id - id)");
  }

  @Test
  void badInputGivesExitCode2AndOneLine() {
    Run wrongDim = run("search", dir.toString(), "--column", "vector", "--q", "1,2", "--k", "3");
    assertThat(wrongDim.code()).isEqualTo(2);
    assertThat(wrongDim.err().trim().lines().toList())
        .hasSize(1)
        .first()
        .asString()
        .contains("has 2 dimensions but the column holds 4-dimensional vectors");
    assertThat(run("search", dir.toString(), "--column", "vector", "--q", q, "--nprobe", "3").err())
        .contains("unknown option --nprobe");
    assertThat(run("info", dir.resolve("missing").toString()).code()).isEqualTo(2);
    assertThat(run("frobnicate").err()).contains("unknown command \"frobnicate\"");
    assertThat(run("search", dir.toString(), "--column", "vector", "--q", q, "--k", "x").err())
        .contains("--k must be a whole number");
  }

  @Test
  void aFilterThatDoesNotParseIsBadInputWithItsPosition() {
    Run r =
        run(
            "search",
            dir.toString(),
            "--column",
            "vector",
            "--q",
            q,
            "--k",
            "3",
            "--filter",
            "id = ");
    assertThat(r.code()).isEqualTo(Main.BAD_INPUT).isEqualTo(2);
    assertThat(r.err().trim().lines().toList())
        .hasSize(1)
        .first()
        .asString()
        .isEqualTo(
            "lancelot search: Cannot parse filter \"id = \": expected a value at position 5");
    Run unknown =
        run("search", dir.toString(), "--column", "vector", "--q", q, "--filter", "nope = 1");
    assertThat(unknown.code()).isEqualTo(2);
    assertThat(unknown.err()).contains("nope");
  }

  @Test
  void damagedDataIsAFailureNotBadInput() throws Exception {
    Path copy = Files.createTempDirectory("cli-damaged");
    try (var files = Files.walk(dir)) {
      for (Path p : files.toList()) {
        Path target = copy.resolve(dir.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
    try (var manifests = Files.list(copy.resolve("_versions"))) {
      for (Path m : manifests.toList()) {
        Files.write(m, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
      }
    }
    Run r = run("info", copy.toString());
    assertThat(r.code()).as(r.err()).isEqualTo(Main.FAILURE).isEqualTo(3);
    assertThat(r.err().trim().lines().toList())
        .hasSize(1)
        .first()
        .asString()
        .startsWith("lancelot info: Cannot");
  }

  @Test
  void anythingElseIsAnInternalErrorToReport() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream stream = new PrintStream(err, true, StandardCharsets.UTF_8);
    int code =
        Main.reportingErrors(
            "info",
            stream,
            () -> {
              throw new IllegalStateException("an invariant broke");
            });
    assertThat(code).isEqualTo(Main.INTERNAL_ERROR).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .startsWith(
            "lancelot info: internal error (a bug in lancelot; please report it with the stack trace below): "
                + "java.lang.IllegalStateException: an invariant broke")
        .contains("at dev.lancelot.cli.MainTest");
    ByteArrayOutputStream err2 = new ByteArrayOutputStream();
    int iae =
        Main.reportingErrors(
            "info",
            new PrintStream(err2, true, StandardCharsets.UTF_8),
            () -> {
              throw new IllegalArgumentException("not input");
            });
    assertThat(iae).isEqualTo(1);
    assertThat(
            Main.reportingErrors(
                "info",
                stream,
                () -> {
                  throw new dev.lancelot.engine.InvalidInputException("Cannot x: y.");
                }))
        .isEqualTo(2);
    assertThat(
            Main.reportingErrors(
                "info",
                stream,
                () -> {
                  throw new dev.lancelot.engine.io.StorageException("Cannot read: unreachable.");
                }))
        .isEqualTo(3);
  }
}
