package dev.lancelot.spark.read;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentInfo;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.ScanTask;
import dev.lancelot.engine.distributed.ScanPlan;
import dev.lancelot.spark.ConfigurationBroadcasts;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.roaringbitmap.RoaringBitmap;

/**
 * The rows inserted and deleted by versions {@code startingVersion} to {@code endingVersion} of a
 * table (semantics S12, decision D72), found by comparing each version with the previous one:
 * fragments it added (inserted rows, read at it), fragments it removed and rows its deletion files
 * added (deleted rows, read at the previous version), rows it no longer marks deleted (a restore:
 * inserted). Versions whose operation changes no row (compaction, index builds, config changes)
 * contribute nothing; versions that change columns (merge, project, data replacement) are refused.
 * Each row carries {@value #CHANGE_TYPE} ({@code insert} or {@code delete}) and {@value
 * #COMMIT_VERSION}.
 */
public final class LanceChangeFeedScan implements Scan, Batch {
  public static final String CHANGE_TYPE = "_change_type";
  public static final String COMMIT_VERSION = "_commit_version";

  /** Operations that change columns rather than rows: refused. */
  static final Set<String> COLUMN_CHANGES = Set.of("merge", "project", "data replacement");

  private final String name;
  private final String location;
  private final Configuration conf;
  private final long startingVersion;
  private final long endingVersion;
  private final StructType dataSchema;

  /** One piece: rows of a fragment read at {@code readVersion}, changed by {@code commit}. */
  record Piece(long readVersion, long commit, boolean insert, ScanTask task) {}

  public LanceChangeFeedScan(
      String name,
      String location,
      Configuration conf,
      long startingVersion,
      long endingVersion,
      StructType dataSchema) {
    this.name = name;
    this.location = location;
    this.conf = conf;
    this.startingVersion = startingVersion;
    this.endingVersion = endingVersion;
    this.dataSchema = dataSchema;
  }

  /** The table's columns and the two change columns. */
  public static StructType schemaOf(StructType dataSchema) {
    return dataSchema
        .add(CHANGE_TYPE, DataTypes.StringType, false)
        .add(COMMIT_VERSION, DataTypes.LongType, false);
  }

  @Override
  public StructType readSchema() {
    return schemaOf(dataSchema);
  }

  @Override
  public String description() {
    return "LanceChangeFeed["
        + name
        + ", versions "
        + startingVersion
        + " to "
        + endingVersion
        + "]";
  }

  @Override
  public Batch toBatch() {
    return this;
  }

  private Dataset open(long version) {
    return new LanceStreamHistory(location, conf, false).open(version);
  }

  /** The pieces of every version of the range, in version order. */
  List<Piece> pieces() {
    List<Piece> out = new ArrayList<>();
    for (long v = startingVersion; v <= endingVersion; v++) {
      Dataset ds = open(v);
      String op = ds.operation();
      if (LanceStreamHistory.WITHOUT_ROW_CHANGES.contains(op)) {
        continue;
      }
      if (COLUMN_CHANGES.contains(op) || op.equals("unknown")) {
        throw new InvalidInputException(
            "Cannot read the changes of "
                + name
                + " across version "
                + v
                + ": its operation ("
                + op
                + ") changes columns, not rows. Read the changes before it (endingVersion "
                + (v - 1)
                + ") or after it (startingVersion "
                + (v + 1)
                + ").");
      }
      Map<Long, FragmentInfo> before = new HashMap<>();
      Dataset prev = v == 1 ? null : open(v - 1);
      if (prev != null) {
        prev.fragments().forEach(f -> before.put(f.id(), f));
      }
      Map<Long, FragmentInfo> after = new HashMap<>();
      ds.fragments().forEach(f -> after.put(f.id(), f));
      for (FragmentInfo f : ds.fragments()) {
        FragmentInfo old = before.get(f.id());
        if (old == null) {
          out.add(new Piece(v, v, true, new ScanTask(f.id(), 0, f.physicalRows())));
        }
      }
      for (FragmentInfo old : before.values()) {
        FragmentInfo now = after.get(old.id());
        if (now == null) {
          out.add(new Piece(v - 1, v, false, new ScanTask(old.id(), 0, old.physicalRows())));
          continue;
        }
        RoaringBitmap deletedBefore = prev.deletedRows(old.id());
        RoaringBitmap deletedNow = ds.deletedRows(old.id());
        RoaringBitmap newlyDeleted = RoaringBitmap.andNot(deletedNow, deletedBefore);
        RoaringBitmap restored = RoaringBitmap.andNot(deletedBefore, deletedNow);
        if (!newlyDeleted.isEmpty()) {
          out.add(
              new Piece(
                  v - 1, v, false, new ScanTask(old.id(), 0, old.physicalRows(), newlyDeleted)));
        }
        if (!restored.isEmpty()) {
          out.add(new Piece(v, v, true, new ScanTask(now.id(), 0, now.physicalRows(), restored)));
        }
      }
    }
    return out;
  }

  @Override
  public InputPartition[] planInputPartitions() {
    Map<Long, ScanPlan> plans = new HashMap<>();
    List<InputPartition> out = new ArrayList<>();
    for (Piece p : pieces()) {
      ScanPlan plan = plans.computeIfAbsent(p.readVersion(), this::plan);
      out.add(
          new LanceChangePartition(
              new LanceStreamPartition(
                  new LanceInputPartition(location, p.readVersion(), p.task(), new String[0]),
                  plan),
              p.insert() ? "insert" : "delete",
              p.commit()));
    }
    return out.toArray(new InputPartition[0]);
  }

  private ScanPlan plan(long version) {
    Dataset ds = open(version);
    try {
      return ScanPlan.plan(
          ds.newScan().columns(List.of(dataSchema.fieldNames())).useScalarIndex(false),
          Long.MAX_VALUE);
    } catch (InvalidInputException e) {
      throw new InvalidInputException(
          "Cannot read the changes of "
              + name
              + " at version "
              + version
              + " with the table's current columns "
              + java.util.Arrays.toString(dataSchema.fieldNames())
              + ": "
              + e.getMessage(),
          e);
    }
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return new LanceChangeReaderFactory(
        ConfigurationBroadcasts.of(SparkSession.active().sparkContext(), conf),
        List.of(dataSchema.fieldNames()));
  }
}
