package dev.lancelot.spark;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.spark.read.LanceChangeFeedScan;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The change feed of a Lance table, named after it as the metadata tables are: {@code
 * lance.db.items.changes} (or {@code lance.`<path>`.changes}), read with options {@code
 * startingVersion} (required) and {@code endingVersion} (default: the latest version): the rows the
 * versions in that range inserted and deleted, with {@code _change_type} and {@code
 * _commit_version} (semantics S12, {@link LanceChangeFeedScan}).
 */
public final class ChangeFeedTable implements SupportsRead {
  public static final String NAME = "changes";
  public static final String STARTING_VERSION = "startingVersion";
  public static final String ENDING_VERSION = "endingVersion";

  private final String name;
  private final String location;
  private final Configuration conf;

  ChangeFeedTable(String name, String location, Configuration conf) {
    this.name = name;
    this.location = location;
    this.conf = conf;
  }

  /** The change feed {@code ident} names ({@code <table>.changes}), if it names one. */
  static Optional<ChangeFeedTable> resolve(LanceCatalog catalog, Identifier ident) {
    String[] ns = ident.namespace();
    if (ns.length == 0 || !ident.name().equals(NAME)) {
      return Optional.empty();
    }
    Configuration conf = LancePathCatalog.hadoopConf();
    String parent;
    String parentName;
    if (ns.length == 1 && TableNames.isPath(ns[0])) {
      parent = dev.lancelot.engine.io.HadoopFileIO.qualify(ns[0], conf);
      parentName = catalog.name() + ".`" + ns[0] + "`";
    } else {
      if (Dataset.exists(catalog.location(ident, conf), conf)) {
        return Optional.empty(); // a table named "changes"
      }
      Identifier table =
          Identifier.of(java.util.Arrays.copyOf(ns, ns.length - 1), ns[ns.length - 1]);
      parent = catalog.location(table, conf);
      parentName = catalog.quoted(table);
    }
    if (!Dataset.exists(parent, conf)) {
      return Optional.empty();
    }
    return Optional.of(new ChangeFeedTable(parentName + "." + NAME, parent, conf));
  }

  @Override
  public String name() {
    return name;
  }

  /** The table's columns (as its latest version has them) and the two change columns. */
  @Override
  @SuppressWarnings("deprecation") // Table.schema() is deprecated for columns()
  public StructType schema() {
    return LanceChangeFeedScan.schemaOf(dataSchema());
  }

  private StructType dataSchema() {
    return SparkTypes.toSpark(Dataset.openLatestCached(location, conf).schema());
  }

  @Override
  public Set<TableCapability> capabilities() {
    return EnumSet.of(TableCapability.BATCH_READ);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    for (String key : options.keySet()) {
      if (!key.equalsIgnoreCase(STARTING_VERSION) && !key.equalsIgnoreCase(ENDING_VERSION)) {
        throw new InvalidInputException(
            "Cannot read "
                + name
                + " with option \""
                + key
                + "\": its options are startingVersion and endingVersion.");
      }
    }
    long latest = Dataset.openLatestCached(location, conf).version();
    String start = options.get(STARTING_VERSION);
    if (start == null) {
      throw new InvalidInputException(
          "Cannot read "
              + name
              + " without option startingVersion: give the first version whose changes to read"
              + " (1 to "
              + latest
              + ").");
    }
    long from = version(STARTING_VERSION, start, latest);
    long to =
        options.containsKey(ENDING_VERSION)
            ? version(ENDING_VERSION, options.get(ENDING_VERSION), latest)
            : latest;
    if (to < from) {
      throw new InvalidInputException(
          "Cannot read "
              + name
              + " from version "
              + from
              + " to version "
              + to
              + ": endingVersion is before startingVersion.");
    }
    StructType data = dataSchema(); // the columns Spark resolved the query against
    return () -> new LanceChangeFeedScan(name, location, conf, from, to, data);
  }

  private long version(String option, String value, long latest) {
    try {
      long v = Long.parseLong(value.trim());
      if (v >= 1 && v <= latest) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new InvalidInputException(
        "Cannot read "
            + name
            + " with "
            + option
            + "=\""
            + value
            + "\": expected a version from 1 to "
            + latest
            + ", the latest.");
  }
}
