package dev.lancelot.spark.read;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentInfo;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.LancelotException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;

/**
 * A table's history as a stream of rows (semantics S11, decision D72): which rows each version
 * adds, and how far a micro-batch reaches under a rate limit. Versions are read through the
 * process-wide dataset cache, so each manifest is read once per JVM.
 *
 * <p>An append adds whole fragments (Lance's append never adds rows to an existing fragment; a
 * version that did would be refused here), so the rows a version appends are its fragments that the
 * previous version does not have. The version that created the dataset (version 1, an overwrite)
 * appends all its fragments. Versions that change no rows — compaction, index builds, config
 * changes — add nothing and are passed over. Any other version deletes, rewrites or replaces rows
 * (delete, update, merge, overwrite, restore, data replacement, column changes): the stream fails
 * at it, unless {@code skipChangeCommits} makes it pass over it too.
 */
final class LanceStreamHistory {
  /** Operations that change no row: the stream passes over them. */
  static final Set<String> WITHOUT_ROW_CHANGES =
      Set.of(
          "create index",
          "rewrite",
          "update config",
          "reserve fragments",
          "update mem wal state",
          "update bases");

  /** Rows {@code [startRow, endRow)} of fragment {@code fragmentId}, read at {@code version}. */
  record Chunk(long version, long fragmentId, long startRow, long endRow) {}

  /** Where a walk stopped, and the rows it passed. */
  record Walk(LanceStreamOffset end, List<Chunk> chunks) {
    long rows() {
      return chunks.stream().mapToLong(c -> c.endRow() - c.startRow()).sum();
    }
  }

  /**
   * The fragments one form of one version delivers, in id order; {@code change} names the operation
   * of a version that deletes or rewrites rows (then there are no fragments).
   */
  private record Unit(List<FragmentInfo> fragments, String change) {}

  private final String location;
  private final Configuration conf;
  private final boolean skipChangeCommits;
  private final Map<LanceStreamOffset, Unit> units = new HashMap<>();

  LanceStreamHistory(String location, Configuration conf, boolean skipChangeCommits) {
    this.location = location;
    this.conf = conf;
    this.skipChangeCommits = skipChangeCommits;
  }

  /** The latest version now. */
  long latestVersion() {
    return Dataset.openLatestCached(location, conf).version();
  }

  /**
   * Version {@code version}, from the dataset cache; a version that no longer exists (removed by
   * cleanup) is reported as such.
   */
  Dataset open(long version) {
    try {
      return Dataset.openCached(location, version, conf);
    } catch (LancelotException e) {
      throw new InvalidInputException(
          "Cannot stream version "
              + version
              + " of "
              + location
              + ": "
              + e.getMessage()
              + " (a version removed by cleanup cannot be streamed; start the query again with a"
              + " new checkpoint and option startingVersion).",
          e);
    }
  }

  /**
   * Walks from {@code start} through version {@code lastVersion} at most, stopping before {@code
   * end} when given, after {@code maxRows} rows or {@code maxFiles} fragment pieces when positive
   * (a fragment is cut by rows to meet {@code maxRows} exactly), and before a version that changes
   * rows when rows were already passed (so those rows are delivered before the stream fails at it).
   *
   * @throws InvalidInputException at a version that changes rows, unless {@code skipChangeCommits}
   */
  Walk walk(
      LanceStreamOffset start,
      long lastVersion,
      LanceStreamOffset end,
      long maxRows,
      int maxFiles) {
    List<Chunk> chunks = new ArrayList<>();
    LanceStreamOffset pos = start;
    long rows = 0;
    int files = 0;
    while (pos.version() <= lastVersion
        && (end == null || LanceStreamOffset.ORDER.compare(pos, end) < 0)) {
      long v = pos.version();
      Unit unit = unit(pos);
      if (unit.change() != null) {
        if (!skipChangeCommits) {
          if (!chunks.isEmpty()) {
            break; // deliver the rows before it first
          }
          throw changeCommit(v, unit.change());
        }
        pos = LanceStreamOffset.changesOf(v + 1);
        continue;
      }
      List<FragmentInfo> fragments = unit.fragments();
      for (int i = pos.fragment(); i < fragments.size(); i++) {
        long from = i == pos.fragment() ? pos.row() : 0;
        LanceStreamOffset here = new LanceStreamOffset(v, pos.snapshot(), i, from);
        if ((end != null && LanceStreamOffset.ORDER.compare(here, end) >= 0)
            || (maxFiles > 0 && files >= maxFiles)
            || (maxRows > 0 && rows >= maxRows)) {
          return new Walk(here, chunks);
        }
        FragmentInfo f = fragments.get(i);
        long stop = f.physicalRows();
        if (end != null
            && end.version() == v
            && end.snapshot() == pos.snapshot()
            && end.fragment() == i) {
          stop = Math.min(stop, end.row());
        }
        if (maxRows > 0) {
          stop = Math.min(stop, from + (maxRows - rows));
        }
        if (stop > from) {
          chunks.add(new Chunk(v, f.id(), from, stop));
          rows += stop - from;
          files++;
        }
        if (stop < f.physicalRows()) {
          return new Walk(new LanceStreamOffset(v, pos.snapshot(), i, stop), chunks);
        }
      }
      pos = LanceStreamOffset.changesOf(v + 1);
    }
    return new Walk(pos, chunks);
  }

  private InvalidInputException changeCommit(long version, String operation) {
    return new InvalidInputException(
        "Cannot stream version "
            + version
            + " of "
            + location
            + ": its operation ("
            + operation
            + ") deletes or rewrites rows, which a stream of appended rows cannot deliver. Set"
            + " option skipChangeCommits=true to pass over such versions (their changes are then"
            + " not delivered), or start a new query (new checkpoint) with startingVersion after"
            + " it.");
  }

  /** The fragments the position's version delivers in the position's form. */
  private Unit unit(LanceStreamOffset pos) {
    LanceStreamOffset key =
        pos.snapshot()
            ? LanceStreamOffset.snapshotOf(pos.version())
            : LanceStreamOffset.changesOf(pos.version());
    Unit u = units.get(key);
    if (u == null) {
      u = readUnit(key.version(), key.snapshot());
      units.put(key, u);
    }
    return u;
  }

  private Unit readUnit(long version, boolean snapshot) {
    Dataset ds = open(version);
    List<FragmentInfo> all = byId(ds.fragments());
    if (snapshot) {
      return new Unit(all, null);
    }
    String op = ds.operation();
    if (version == 1 && op.equals("overwrite")) {
      return new Unit(all, null); // the version that created the dataset
    }
    if (WITHOUT_ROW_CHANGES.contains(op)) {
      return new Unit(List.of(), null);
    }
    if (!op.equals("append")) {
      return new Unit(List.of(), op);
    }
    Map<Long, FragmentInfo> before = new HashMap<>();
    for (FragmentInfo f : open(version - 1).fragments()) {
      before.put(f.id(), f);
    }
    List<FragmentInfo> added = new ArrayList<>();
    for (FragmentInfo f : all) {
      FragmentInfo old = before.get(f.id());
      if (old == null) {
        added.add(f);
      } else if (old.physicalRows() != f.physicalRows()) {
        throw new InvalidInputException(
            "Cannot stream version "
                + version
                + " of "
                + location
                + ": the append changed fragment "
                + f.id()
                + " from "
                + old.physicalRows()
                + " to "
                + f.physicalRows()
                + " rows; only appends of new fragments can be streamed.");
      }
    }
    return new Unit(added, null);
  }

  private static List<FragmentInfo> byId(List<FragmentInfo> fragments) {
    List<FragmentInfo> out = new ArrayList<>(fragments);
    out.sort(Comparator.comparingLong(FragmentInfo::id));
    return out;
  }
}
