package dev.lancelot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** compact and cleanup: output, effect on the dataset, bad input. */
class MaintenanceCommandsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void compactThenCleanup() throws Exception {
    Path ds = dir.resolve("ds");
    CliData.write(ds, 0, 1000, WriteMode.CREATE, 250); // four fragments of 250 rows
    CliData.Result r = CliData.run("compact", ds.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out())
        .contains(
            "compacted 4 fragments into 1 (1,000 rows), remapped 0 index segments; dataset is "
                + "now at version 2");
    CliData.Result again = CliData.run("compact", ds.toString(), "--json");
    JsonNode j = JSON.readTree(again.out());
    assertThat(j.get("committed").asBoolean()).isFalse();
    assertThat(j.get("version").asLong()).isEqualTo(2);

    CliData.Result cleaned =
        CliData.run("cleanup", ds.toString(), "--retain-versions", "1", "--json");
    assertThat(cleaned.code()).as(cleaned.err()).isZero();
    JsonNode c = JSON.readTree(cleaned.out());
    assertThat(c.get("versions_removed").toString()).isEqualTo("[1]");
    assertThat(c.get("data_files_removed").asLong()).isEqualTo(4);
    try (Dataset d = Dataset.open(ds.toString())) {
      assertThat(d.versions()).hasSize(1);
      assertThat(d.countRows()).isEqualTo(1000);
    }
  }

  @Test
  void badInputSaysWhatToChange() {
    Path ds = dir.resolve("ds");
    CliData.write(ds, 0, 100, WriteMode.CREATE, 100);
    CliData.Result none = CliData.run("cleanup", ds.toString());
    assertThat(none.code()).isEqualTo(2);
    assertThat(none.err())
        .contains(
            "lancelot cleanup: give --older-than (an ISO-8601 instant) and/or "
                + "--retain-versions N");
    CliData.Result badTime = CliData.run("cleanup", ds.toString(), "--older-than", "yesterday");
    assertThat(badTime.err()).contains("option --older-than must be an ISO-8601 instant");
    CliData.Result zero = CliData.run("compact", ds.toString(), "--target-rows-per-fragment", "0");
    assertThat(zero.code()).isEqualTo(2);
    assertThat(zero.err()).contains("option --target-rows-per-fragment must be at least 1, got 0");
  }

  @Test
  void compactWritesUnderTheTargetBase() throws Exception {
    Path ds = dir.resolve("ds");
    Path cold = dir.resolve("cold");
    try (var a = new org.apache.arrow.memory.RootAllocator();
        var batch = dev.lancelot.engine.testing.StandardData.generate(a, 0, 400, 4, 1);
        var reader =
            dev.lancelot.engine.testing.ArrowStreams.readerOf(a, java.util.List.of(batch))) {
      Dataset.write(
              ds.toString(),
              reader,
              dev.lancelot.engine.WriteOptions.of(WriteMode.CREATE)
                  .withMaxRowsPerFile(100)
                  .withInitialBases(
                      java.util.List.of(
                          dev.lancelot.engine.InitialBase.datasetRoot("cold", cold.toString()))))
          .close();
    }
    CliData.Result bad = CliData.run("compact", ds.toString(), "--target-base", "hot");
    assertThat(bad.code()).isNotZero();
    assertThat(bad.err()).contains("to base \"hot\"").contains("cold=");
    assertThat(cold).doesNotExist();
    CliData.Result r = CliData.run("compact", ds.toString(), "--target-base", "cold", "--json");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = JSON.readTree(r.out());
    assertThat(j.get("fragments_removed").asLong()).isEqualTo(4);
    try (var files = java.nio.file.Files.list(cold.resolve("data"))) {
      assertThat(files.count()).isEqualTo(j.get("files_added").asLong());
    }
    try (Dataset d = Dataset.open(ds.toString())) {
      assertThat(d.countRows()).isEqualTo(400);
      assertThat(d.fragments()).hasSize(1);
    }
  }
}
