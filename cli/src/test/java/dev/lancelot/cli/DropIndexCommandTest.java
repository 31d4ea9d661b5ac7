package dev.lancelot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** drop-index: output, effect on the dataset (info no longer lists it), bad input. */
class DropIndexCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void dropsAnIndexAsANewVersion() throws Exception {
    Path ds = dir.resolve("ds");
    CliData.write(ds, 0, 300, WriteMode.CREATE, 100); // 1
    assertThat(CliData.run("create-scalar-index", ds.toString(), "--column", "tenant_id").code())
        .isZero(); // 2
    assertThat(CliData.run("create-scalar-index", ds.toString(), "--column", "id").code())
        .isZero(); // 3
    CliData.Result r = CliData.run("drop-index", ds.toString(), "--name", "tenant_id_idx");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("dropped index tenant_id_idx (1 segment) as version 4");
    CliData.Result j = CliData.run("drop-index", ds.toString(), "--name", "id_idx", "--json");
    assertThat(j.code()).as(j.err()).isZero();
    JsonNode node = JSON.readTree(j.out());
    assertThat(node.get("version").asLong()).isEqualTo(5);
    assertThat(node.get("dropped_index").asText()).isEqualTo("id_idx");
    try (Dataset d = Dataset.open(ds.toString())) {
      assertThat(d.indexes().names()).isEmpty();
      assertThat(d.countRows()).isEqualTo(300);
    }
    assertThat(CliData.run("info", ds.toString()).out()).doesNotContain("tenant_id_idx");
  }

  @Test
  void badInputSaysWhatToChangeAndChangesNothing() {
    Path ds = dir.resolve("ds");
    CliData.write(ds, 0, 100, WriteMode.CREATE, 100);
    assertThat(CliData.run("create-scalar-index", ds.toString(), "--column", "id").code()).isZero();
    CliData.Result none = CliData.run("drop-index", ds.toString());
    assertThat(none.code()).isEqualTo(2);
    assertThat(none.err()).contains("lancelot drop-index: give the index to drop with --name NAME");
    CliData.Result unknown = CliData.run("drop-index", ds.toString(), "--name", "idx");
    assertThat(unknown.code()).isEqualTo(2);
    assertThat(unknown.err())
        .contains("Cannot drop index \"idx\"")
        .contains("Its indexes are [id_idx] (did you mean \"id_idx\"?)");
    try (Dataset d = Dataset.open(ds.toString())) {
      assertThat(d.version()).isEqualTo(2);
    }
    assertThat(CliData.run("help").out()).contains("drop-index <dataset> --name NAME [--json]");
  }
}
