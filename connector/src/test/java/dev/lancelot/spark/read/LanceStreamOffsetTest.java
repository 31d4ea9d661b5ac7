package dev.lancelot.spark.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.InvalidInputException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.connector.read.streaming.CompositeReadLimit;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.apache.spark.sql.connector.read.streaming.ReadMaxFiles;
import org.apache.spark.sql.connector.read.streaming.ReadMaxRows;
import org.junit.jupiter.api.Test;

/** Stream positions as Spark keeps them in the checkpoint, and the streaming read options. */
class LanceStreamOffsetTest {
  @Test
  void aPositionSurvivesItsJsonAndPositionsAreOrderedAsTheStreamDeliversThem() {
    LanceStreamOffset p = new LanceStreamOffset(5, false, 2, 100);
    assertThat(p.json()).isEqualTo("{\"version\":5,\"snapshot\":false,\"fragment\":2,\"row\":100}");
    assertThat(LanceStreamOffset.parse(p.json())).isEqualTo(p);
    assertThat(LanceStreamOffset.of(p.toSpark())).isEqualTo(p);
    assertThat(p.toSpark()).isEqualTo(new LanceStreamOffset(5, false, 2, 100).toSpark());
    assertThat(
            LanceStreamOffset.parse(
                " { \"version\" : 7 , \"snapshot\" : true , \"fragment\" : 0 , \"row\" : 0 } "))
        .isEqualTo(LanceStreamOffset.snapshotOf(7));

    List<LanceStreamOffset> order =
        new ArrayList<>(
            List.of(
                LanceStreamOffset.changesOf(6),
                new LanceStreamOffset(5, true, 1, 0),
                LanceStreamOffset.snapshotOf(5),
                new LanceStreamOffset(5, false, 0, 9),
                LanceStreamOffset.changesOf(5)));
    order.sort(LanceStreamOffset.ORDER);
    assertThat(order)
        .containsExactly(
            LanceStreamOffset.changesOf(5),
            new LanceStreamOffset(5, false, 0, 9),
            LanceStreamOffset.snapshotOf(5),
            new LanceStreamOffset(5, true, 1, 0),
            LanceStreamOffset.changesOf(6));
  }

  @Test
  void anOffsetOfAnotherSourceIsRefused() {
    assertThatThrownBy(() -> LanceStreamOffset.parse("{\"logOffset\":3}"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("it is not a lance stream position");
    assertThatThrownBy(
            () ->
                LanceStreamOffset.parse(
                    "{\"version\":0,\"snapshot\":false,\"fragment\":0,\"row\":0}"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("Invalid stream position: version 0");
  }

  @Test
  void optionsSetTheStartAndTheReadLimit() {
    LanceStreamOptions none = LanceStreamOptions.parse(Map.of());
    assertThat(none.startingVersion()).isEmpty();
    assertThat(none.latest()).isFalse();
    assertThat(none.readLimit()).isEqualTo(ReadLimit.allAvailable());

    LanceStreamOptions both =
        LanceStreamOptions.parse(
            Map.of(
                "STARTINGVERSION", "3",
                "maxRowsPerTrigger", "1000",
                "maxfilespertrigger", "4",
                "skipChangeCommits", "TRUE"));
    assertThat(both.startingVersion()).hasValue(3);
    assertThat(both.skipChangeCommits()).isTrue();
    assertThat(both.timeTravel()).isFalse();
    assertThat(((CompositeReadLimit) both.readLimit()).getReadLimits())
        .containsExactly(ReadLimit.maxRows(1000), ReadLimit.maxFiles(4));
    assertThat(LanceStreamOptions.parse(Map.of("maxRowsPerTrigger", "7")).readLimit())
        .isInstanceOf(ReadMaxRows.class);
    assertThat(LanceStreamOptions.parse(Map.of("maxFilesPerTrigger", "7")).readLimit())
        .isInstanceOf(ReadMaxFiles.class);
    assertThat(LanceStreamOptions.parse(Map.of("startingVersion", " Latest ")).latest()).isTrue();
    assertThat(LanceStreamOptions.parse(Map.of("versionAsOf", "2")).timeTravel()).isTrue();

    assertThatThrownBy(() -> LanceStreamOptions.parse(Map.of("startingVersion", "first")))
        .hasMessage(
            "Cannot use option startingVersion=\"first\": expected a whole number of at least 1"
                + " (a version) or \"latest\".");
    assertThatThrownBy(() -> LanceStreamOptions.parse(Map.of("maxFilesPerTrigger", "-2")))
        .hasMessageContaining("maxFilesPerTrigger=\"-2\"");
    assertThatThrownBy(() -> LanceStreamOptions.parse(Map.of("skipChangeCommits", "yes")))
        .hasMessageContaining("give true or false");
  }
}
