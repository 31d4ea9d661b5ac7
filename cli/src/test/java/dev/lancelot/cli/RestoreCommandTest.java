package dev.lancelot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** restore: by version and by timestamp, output, effect on the dataset, bad input. */
class RestoreCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void restoresByVersionAndByTimestamp() throws Exception {
    Path ds = dir.resolve("ds");
    CliData.write(ds, 0, 100, WriteMode.CREATE, 100); // 1
    CliData.write(ds, 100, 50, WriteMode.APPEND, 100); // 2
    CliData.Result r = CliData.run("restore", ds.toString(), "--version", "1");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("restored version 1 as version 3 (100 rows)");

    Instant t2;
    try (Dataset d = Dataset.open(ds.toString())) {
      assertThat(d.version()).isEqualTo(3);
      assertThat(d.countRows()).isEqualTo(100);
      assertThat(d.versions().get(2).operation()).isEqualTo("restore");
      t2 = d.versions().get(1).timestamp();
    }
    CliData.Result byTime =
        CliData.run("restore", ds.toString(), "--timestamp", t2.toString(), "--json");
    assertThat(byTime.code()).as(byTime.err()).isZero();
    JsonNode j = JSON.readTree(byTime.out());
    assertThat(j.get("version").asLong()).isEqualTo(4);
    assertThat(j.get("restored_version").asLong()).isEqualTo(2);
    try (Dataset d = Dataset.open(ds.toString())) {
      assertThat(d.countRows()).isEqualTo(150);
    }
  }

  @Test
  void badInputSaysWhatToChangeAndChangesNothing() {
    Path ds = dir.resolve("ds");
    CliData.write(ds, 0, 100, WriteMode.CREATE, 100);
    CliData.Result none = CliData.run("restore", ds.toString());
    assertThat(none.code()).isEqualTo(2);
    assertThat(none.err())
        .contains("lancelot restore: give exactly one of --version N and --timestamp INSTANT");
    CliData.Result both =
        CliData.run(
            "restore", ds.toString(), "--version", "1", "--timestamp", "2026-01-01T00:00:00Z");
    assertThat(both.code()).isEqualTo(2);
    CliData.Result badTime = CliData.run("restore", ds.toString(), "--timestamp", "yesterday");
    assertThat(badTime.err()).contains("option --timestamp must be an ISO-8601 instant");
    CliData.Result missing = CliData.run("restore", ds.toString(), "--version", "7");
    assertThat(missing.code()).isEqualTo(2);
    assertThat(missing.err())
        .contains("Cannot restore version 7")
        .contains("Available versions: 1 to 1.");
    CliData.Result early =
        CliData.run("restore", ds.toString(), "--timestamp", "2001-01-01T00:00:00Z");
    assertThat(early.code()).isEqualTo(2);
    assertThat(early.err()).contains("no version was committed at or before that time");
    try (Dataset d = Dataset.open(ds.toString())) {
      assertThat(d.version()).isEqualTo(1);
    }
    assertThat(CliData.run("help").out())
        .contains("restore <dataset> (--version N | --timestamp INSTANT) [--json]");
  }
}
