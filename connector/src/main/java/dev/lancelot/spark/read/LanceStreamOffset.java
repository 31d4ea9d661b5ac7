package dev.lancelot.spark.read;

import dev.lancelot.engine.InvalidInputException;
import java.util.Comparator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.connector.read.streaming.Offset;

/**
 * A position in a lance table's stream of rows (semantics S11): every row before it has been
 * delivered. The rows of version {@code version} come in one of two forms: the version's whole
 * content ({@code snapshot}, the first batch of a stream without {@code startingVersion}), or the
 * fragments the version appended. Either is a list of fragments in id order; the position is
 * fragment {@code fragment} of that list, at physical row {@code row}. After the whole of version
 * {@code v} (either form) comes the appended rows of version {@code v + 1}.
 *
 * <p>Spark keeps the offset in the checkpoint as JSON, e.g. {@code
 * {"version":5,"snapshot":false,"fragment":2,"row":100}}; a restarted query resumes from it.
 */
record LanceStreamOffset(long version, boolean snapshot, int fragment, long row) {
  private static final Pattern JSON =
      Pattern.compile(
          "\\{\\s*\"version\"\\s*:\\s*(\\d+)\\s*,\\s*\"snapshot\"\\s*:\\s*(true|false)\\s*,"
              + "\\s*\"fragment\"\\s*:\\s*(\\d+)\\s*,\\s*\"row\"\\s*:\\s*(\\d+)\\s*}");

  /** Stream order: the appended rows of a version, then its snapshot, then the next version. */
  static final Comparator<LanceStreamOffset> ORDER =
      Comparator.comparingLong(LanceStreamOffset::version)
          .thenComparing(LanceStreamOffset::snapshot)
          .thenComparingInt(LanceStreamOffset::fragment)
          .thenComparingLong(LanceStreamOffset::row);

  LanceStreamOffset {
    if (version < 1 || fragment < 0 || row < 0) {
      throw new IllegalArgumentException(
          "Invalid stream position: version "
              + version
              + ", fragment "
              + fragment
              + ", row "
              + row);
    }
  }

  /** The first appended row of {@code version}. */
  static LanceStreamOffset changesOf(long version) {
    return new LanceStreamOffset(version, false, 0, 0);
  }

  /** The first row of {@code version}'s whole content. */
  static LanceStreamOffset snapshotOf(long version) {
    return new LanceStreamOffset(version, true, 0, 0);
  }

  String json() {
    return "{\"version\":"
        + version
        + ",\"snapshot\":"
        + snapshot
        + ",\"fragment\":"
        + fragment
        + ",\"row\":"
        + row
        + "}";
  }

  /** Reads {@link #json()}; anything else is refused (a checkpoint of another source). */
  static LanceStreamOffset parse(String json) {
    Matcher m = JSON.matcher(json.trim());
    if (!m.matches()) {
      throw new InvalidInputException(
          "Cannot resume a stream from offset "
              + json
              + ": it is not a lance stream position ({\"version\":..,\"snapshot\":..,"
              + "\"fragment\":..,\"row\":..}). Was the checkpoint written by another source?");
    }
    try {
      return new LanceStreamOffset(
          Long.parseLong(m.group(1)),
          Boolean.parseBoolean(m.group(2)),
          Integer.parseInt(m.group(3)),
          Long.parseLong(m.group(4)));
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException(
          "Cannot resume a stream from offset " + json + ": " + e.getMessage());
    }
  }

  /** This position as Spark's offset. */
  Offset toSpark() {
    return new SparkOffset(json());
  }

  /** Spark's offset: its JSON (Spark compares offsets by their JSON). */
  static final class SparkOffset extends Offset {
    private final String json;

    SparkOffset(String json) {
      this.json = json;
    }

    @Override
    public String json() {
      return json;
    }

    LanceStreamOffset position() {
      return parse(json);
    }
  }

  /** The position an offset of this source (or its JSON, from the checkpoint) stands for. */
  static LanceStreamOffset of(Offset offset) {
    return offset instanceof SparkOffset s ? s.position() : parse(offset.json());
  }
}
