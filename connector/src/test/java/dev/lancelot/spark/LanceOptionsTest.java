package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.LancelotException;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.junit.jupiter.api.Test;

/** Options of the {@code lance} data source: defaults, parsing, lance-spark's names, refusals. */
class LanceOptionsTest {
  private static LanceOptions parse(String... keysAndValues) {
    Map<String, String> map = new HashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      map.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return LanceOptions.parse(new CaseInsensitiveStringMap(map));
  }

  @Test
  void defaults() {
    LanceOptions o = parse("path", "/data/items.lance");
    assertThat(o.path()).isEqualTo("/data/items.lance");
    assertThat(o.version()).isEmpty();
    assertThat(o.batchSize()).isEqualTo(8192);
    assertThat(o.maxRowsPerPartition()).isEqualTo(1_048_576L);
    assertThat(o.maxRowsPerFile()).isEqualTo(1_048_576);
    assertThat(o.vectorColumns()).isEmpty();
  }

  @Test
  void everyOptionIsParsedAndNamesIgnoreCase() {
    LanceOptions o =
        parse(
            "PATH",
            "s3a://b/t",
            "Version",
            "7",
            "BATCH_SIZE",
            " 100 ",
            "max_rows_per_partition",
            "5000",
            "Max_Rows_Per_File",
            "2000",
            "vector.columns",
            "vector:128, img_emb:512",
            "timestampAsOf",
            "2026-01-31 12:00:00");
    assertThat(o.path()).isEqualTo("s3a://b/t");
    assertThat(o.version()).isEqualTo(OptionalLong.of(7));
    assertThat(o.batchSize()).isEqualTo(100);
    assertThat(o.maxRowsPerPartition()).isEqualTo(5000L);
    assertThat(o.maxRowsPerFile()).isEqualTo(2000);
    assertThat(o.vectorColumns()).isEqualTo(Map.of("vector", 128, "img_emb", 512));
  }

  @Test
  void versionAsOfIsTheVersionOption() {
    assertThat(parse("path", "p", "versionAsOf", "3").version()).isEqualTo(OptionalLong.of(3));
  }

  @Test
  void aPathIsRequired() {
    assertThatThrownBy(() -> parse("batch_size", "10"))
        .isInstanceOf(LancelotException.class)
        .hasMessage(
            "Cannot use the lance data source without a path: pass it to load(path) / save(path) or set "
                + "option \"path\".");
    assertThatThrownBy(() -> parse("path", "  ")).hasMessageContaining("without a path");
  }

  @Test
  void lanceSparksNameOfMaxRowsPerFileIsAnAlias() {
    assertThat(parse("path", "p", "MAX_ROW_PER_FILE", "300").maxRowsPerFile()).isEqualTo(300);
    assertThatThrownBy(
            () -> parse("path", "p", "max_row_per_file", "300", "max_rows_per_file", "400"))
        .isInstanceOf(LancelotException.class)
        .hasMessage(
            "Cannot use both options \"max_row_per_file\" and \"max_rows_per_file\" with the lance data "
                + "source: they are the same option. Keep one.");
  }

  @Test
  void lanceSparkOptionsLancelotDoesNotOfferAreRefusedSayingWhatToDo() {
    assertThatThrownBy(() -> parse("path", "p", "write_mode", "append"))
        .isInstanceOf(LancelotException.class)
        .hasMessageStartingWith(
            "Cannot use option \"write_mode\" with the lance data source: lancelot does not "
                + "offer this lance-spark option; use Spark's save mode instead");
    assertThatThrownBy(() -> parse("path", "p", "PushDownFilters", "false"))
        .hasMessageContaining("filters are always pushed down");
  }

  @Test
  void dataStorageVersionIsLanceSparksOptionAndChecked() {
    assertThat(parse("path", "p").dataStorageVersion()).isEmpty();
    assertThat(parse("path", "p", "DATA_STORAGE_VERSION", "2.2").dataStorageVersion())
        .contains("2.2");
    assertThat(parse("path", "p", "data_storage_version", " Stable ").dataStorageVersion())
        .contains("2.1");
    assertThatThrownBy(() -> parse("path", "p", "data_storage_version", "legacy"))
        .isInstanceOf(LancelotException.class)
        .hasMessageContaining("\"legacy\"")
        .hasMessageContaining("lancelot writes formats 2.1 and 2.2");
  }

  @Test
  void anUnknownOptionIsRefusedNamingTheClosestValidOne() {
    assertThatThrownBy(() -> parse("path", "p", "verison", "3"))
        .isInstanceOf(LancelotException.class)
        .hasMessage(
            "Cannot use option \"verison\" with the lance data source: it is not an option of lance. Did "
                + "you mean \"version\"? Valid options: path, version, versionAsOf, timestampAsOf, tag, branch, "
                + "batch_size, "
                + "max_rows_per_partition, max_rows_per_file, vector.columns, enable_stable_row_ids, "
                + "data_storage_version, target_base, streamingQueryId, startingVersion, "
                + "maxRowsPerTrigger, maxFilesPerTrigger, skipChangeCommits, optimizeIndexEveryBatches, "
                + "optimizeIndexUnindexedRows, checkpointLocation.");
    assertThatThrownBy(() -> parse("path", "p", "batchsize", "3"))
        .hasMessageContaining("Did you mean \"batch_size\"?");
    assertThat(parse("path", "p", "ENABLE_STABLE_ROW_IDS", " True ").enableStableRowIds()).isTrue();
    assertThat(parse("path", "p").enableStableRowIds()).isFalse();
    assertThatThrownBy(() -> parse("path", "p", "enable_stable_row_ids", "1"))
        .hasMessage("Cannot use enable_stable_row_ids=\"1\": give true or false.");
    assertThatThrownBy(() -> parse("path", "p", "vector_columns", "v:3"))
        .hasMessageContaining("Did you mean \"vector.columns\"?");
    assertThat(LanceOptions.closest("MAX_ROWS_PER_PARTITON")).isEqualTo("max_rows_per_partition");
  }

  @Test
  void numbersMustBePositiveWholeNumbersThatFitAnInt() {
    for (String bad : new String[] {"0", "-1", "ten", "1.5", "3000000000", ""}) {
      assertThatThrownBy(() -> parse("path", "p", "batch_size", bad))
          .as(bad)
          .isInstanceOf(LancelotException.class)
          .hasMessage(
              "Cannot use option batch_size=\""
                  + bad
                  + "\": expected a whole number between 1 and "
                  + "2147483647.");
    }
    assertThatThrownBy(() -> parse("path", "p", "version", "0"))
        .hasMessageStartingWith("Cannot use option version=");
    assertThat(LanceOptions.positiveLong("x", "2147483647")).isEqualTo(2_147_483_647L);
  }

  @Test
  void aVersionThatIsNotANumberIsATagAndTagsAndBranchesAreChecked() {
    LanceOptions o = parse("path", "p", "versionAsOf", "release-1");
    assertThat(o.version()).isEmpty();
    assertThat(o.tag()).contains("release-1");
    assertThat(parse("path", "p", "tag", "gold").tag()).contains("gold");
    LanceOptions b = parse("path", "p", "branch", "dev/x", "version", "4");
    assertThat(b.branch()).contains("dev/x");
    assertThat(b.version()).isEqualTo(OptionalLong.of(4));
    assertThat(parse("path", "p", "branch", "main").branch()).isEmpty();
    assertThatThrownBy(() -> parse("path", "p", "tag", "../up"))
        .hasMessageStartingWith("Invalid tag name \"../up\"");
    assertThatThrownBy(() -> parse("path", "p", "versionAsOf", "a/b"))
        .hasMessageStartingWith("Invalid tag name \"a/b\"");
    assertThatThrownBy(() -> parse("path", "p", "branch", "x/../../y"))
        .hasMessageStartingWith("Invalid branch name \"x/../../y\"");
    assertThatThrownBy(() -> parse("path", "p", "tag", "gold", "branch", "dev"))
        .hasMessage(
            "Cannot read tag \"gold\" together with branch dev: the tag names the version and its "
                + "branch. Give one of them.");
    assertThatThrownBy(() -> parse("path", "p", "tag", "gold", "versionAsOf", "silver"))
        .hasMessageStartingWith("Cannot use both option tag=\"gold\" and version=\"silver\"");
  }

  @Test
  void vectorColumnsAreNameDimPairs() {
    assertThat(LanceOptions.vectorColumns(null)).isEmpty();
    assertThat(LanceOptions.vectorColumns(" ")).isEmpty();
    assertThat(LanceOptions.vectorColumns("a:1")).isEqualTo(Map.of("a", 1));
    for (String bad : new String[] {"vector", ":3", "a:1:2", "a:1,b"}) {
      assertThatThrownBy(() -> LanceOptions.vectorColumns(bad))
          .as(bad)
          .isInstanceOf(LancelotException.class)
          .hasMessage(
              "Cannot use option vector.columns=\""
                  + bad
                  + "\": expected name:dim pairs separated by "
                  + "commas, e.g. \"vector:128\".");
    }
    assertThatThrownBy(() -> LanceOptions.vectorColumns("a:0"))
        .hasMessageStartingWith("Cannot use option vector.columns=\"0\": expected a whole number");
  }
}
