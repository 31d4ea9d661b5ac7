package dev.lancelot.spark;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.DatasetNotFoundException;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.VersionInfo;
import dev.lancelot.engine.io.HadoopFileIO;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.StagedTable;
import org.apache.spark.sql.connector.catalog.StagingTableCatalog;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A catalog whose table names are dataset locations. It backs {@code
 * spark.read/write.format("lance")} (see {@link LanceDataSource#extractCatalog}), so that every
 * save mode maps to a Spark plan: append and overwrite of existing datasets load the table,
 * errorifexists and ignore become create-table-as-select, and all of them commit one Lance version.
 */
public class LancePathCatalog implements StagingTableCatalog {
  private String name = "lance_paths";

  @Override
  public void initialize(String name, CaseInsensitiveStringMap options) {
    this.name = name;
  }

  @Override
  public String name() {
    return name;
  }

  public static Configuration hadoopConf() {
    return SparkSession.active().sessionState().newHadoopConf();
  }

  /**
   * {@code location} qualified the way Spark's file sources qualify paths, under the active
   * session's Hadoop configuration: a URI with a scheme is kept, a scheme-less absolute path takes
   * the scheme and authority of {@code fs.defaultFS}, a relative path is resolved against the
   * working directory of the default file system (the driver's). Every entry point calls this once,
   * on the driver, so that executors only ever see fully qualified URIs.
   */
  public static String qualify(String location) {
    return HadoopFileIO.qualify(location, hadoopConf());
  }

  /** The dataset location a table name stands for: here the name itself, qualified. */
  protected String location(Identifier ident, Configuration conf) {
    return HadoopFileIO.qualify(ident.name(), conf);
  }

  /**
   * Where a staged create or replace writes: {@link #location}. {@code properties} are the
   * statement's table properties ({@code LOCATION} among them as {@code location}).
   */
  protected String stagingLocation(
      Identifier ident, Map<String, String> properties, Configuration conf) {
    return location(ident, conf);
  }

  /**
   * The table for a location without a dataset: an empty one, so that an append there creates the
   * dataset (as Lance does).
   */
  protected Table missingTable(Identifier ident, String location, Configuration conf)
      throws NoSuchTableException {
    return LanceTable.absent(location, conf);
  }

  @Override
  public Identifier[] listTables(String[] namespace) throws NoSuchNamespaceException {
    return new Identifier[0];
  }

  /**
   * Loads the latest version. A location without a dataset yields {@link #missingTable}: here an
   * empty table, so that an append there creates the dataset (as Lance does); reads never get here
   * for such a location, because {@link LanceDataSource#extractTimeTravelVersion} refuses them
   * first with a clear error.
   */
  @Override
  public Table loadTable(Identifier ident) throws NoSuchTableException {
    Configuration conf = hadoopConf();
    String location = location(ident, conf);
    if (!Dataset.exists(location, conf)) {
      return missingTable(ident, location, conf);
    }
    return LanceTable.load(location, 0, conf);
  }

  @Override
  public Table loadTable(Identifier ident, String version) throws NoSuchTableException {
    Configuration conf = hadoopConf();
    String location = location(ident, conf);
    if (!LanceOptions.isVersionNumber(version)) {
      if (!Dataset.exists(location, conf)) {
        throw new NoSuchTableException(ident);
      }
      return loadTag(location, version.trim(), conf);
    }
    long v;
    try {
      v = Long.parseLong(version.trim());
    } catch (NumberFormatException e) {
      throw new InvalidInputException(
          "Cannot read version \""
              + version
              + "\" of "
              + ident.name()
              + ": Lance versions are whole numbers (1, 2, ...), or tag names.");
    }
    try {
      return LanceTable.load(location, v, conf);
    } catch (DatasetNotFoundException e) {
      if (Dataset.exists(location, conf)) {
        throw e; // the dataset exists but not this version: keep the engine's message listing
        // versions
      }
      throw new NoSuchTableException(ident);
    }
  }

  /**
   * {@code VERSION AS OF '<tag>'}, option {@code versionAsOf} or {@code tag} with a tag name: the
   * version the tag of the dataset at {@code location} names, on the tag's branch. A tag that does
   * not exist is an error naming the dataset's tags.
   */
  static LanceTable loadTag(String location, String tag, Configuration conf) {
    try (Dataset ds =
        Dataset.open(location, OpenOptions.defaults().withHadoopConf(conf).withTag(tag))) {
      return LanceTable.load(ds.location(), ds.version(), conf);
    }
  }

  /**
   * {@code TIMESTAMP AS OF} and option {@code timestampAsOf}: the version that was the latest at
   * {@code timestamp} (microseconds since the epoch, as Spark passes it), i.e. the newest version
   * committed at or before it.
   */
  @Override
  public Table loadTable(Identifier ident, long timestamp) throws NoSuchTableException {
    Configuration conf = hadoopConf();
    String location = location(ident, conf);
    if (!Dataset.exists(location, conf)) {
      throw new NoSuchTableException(ident);
    }
    Instant at = Instant.EPOCH.plus(timestamp, ChronoUnit.MICROS);
    List<VersionInfo> versions;
    try (Dataset ds = Dataset.open(location, OpenOptions.defaults().withHadoopConf(conf))) {
      versions = ds.versions();
    }
    long version = 0;
    for (VersionInfo v : versions) {
      if (!v.timestamp().isAfter(at) && v.version() > version) {
        version = v.version();
      }
    }
    if (version == 0) {
      VersionInfo first = versions.get(0);
      throw new InvalidInputException(
          "Cannot read "
              + location
              + " as of "
              + at
              + ": its first version ("
              + first.version()
              + ") was committed later, at "
              + first.timestamp()
              + ". Use a timestamp at or after "
              + first.timestamp()
              + ", or VERSION AS OF.");
    }
    return LanceTable.load(location, version, conf);
  }

  @Override
  public boolean tableExists(Identifier ident) {
    Configuration conf = hadoopConf();
    return Dataset.exists(location(ident, conf), conf);
  }

  @Override
  @SuppressWarnings("deprecation") // Spark still calls these overloads
  public Table createTable(
      Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> properties)
      throws TableAlreadyExistsException {
    throw new UnsupportedOperationException(
        "Cannot create an empty Lance dataset at "
            + ident.name()
            + " through this path catalog; write a DataFrame to it instead.");
  }

  @Override
  @SuppressWarnings("deprecation") // Spark still calls these overloads
  public Table createTable(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> props)
      throws TableAlreadyExistsException {
    return createTable(ident, V2Columns.of(schema), partitions, props);
  }

  @Override
  @SuppressWarnings("deprecation") // Spark still calls these overloads
  public StagedTable stageCreate(
      Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> properties) {
    requireUnpartitioned(ident, partitions);
    Configuration conf = hadoopConf();
    return new LanceStagedTable(
        stagingLocation(ident, properties, conf),
        conf,
        false,
        vectorColumns(properties),
        stableRowIds(properties),
        dataStorageVersion(properties),
        LanceOptions.blobColumns(properties));
  }

  @Override
  @SuppressWarnings("deprecation") // Spark still calls these overloads
  public StagedTable stageCreate(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties) {
    return stageCreate(ident, V2Columns.of(schema), partitions, properties);
  }

  @Override
  @SuppressWarnings("deprecation") // Spark still calls these overloads
  public StagedTable stageReplace(
      Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> properties) {
    return stageCreateOrReplace(ident, columns, partitions, properties);
  }

  @Override
  @SuppressWarnings("deprecation") // Spark still calls these overloads
  public StagedTable stageReplace(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties) {
    return stageCreateOrReplace(ident, V2Columns.of(schema), partitions, properties);
  }

  @Override
  @SuppressWarnings("deprecation") // Spark still calls these overloads
  public StagedTable stageCreateOrReplace(
      Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> properties) {
    requireUnpartitioned(ident, partitions);
    Configuration conf = hadoopConf();
    return new LanceStagedTable(
        stagingLocation(ident, properties, conf),
        conf,
        true,
        vectorColumns(properties),
        stableRowIds(properties),
        dataStorageVersion(properties),
        LanceOptions.blobColumns(properties));
  }

  @Override
  @SuppressWarnings("deprecation") // Spark still calls these overloads
  public StagedTable stageCreateOrReplace(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties) {
    return stageCreateOrReplace(ident, V2Columns.of(schema), partitions, properties);
  }

  /**
   * Vector columns named by table properties {@code '<column>.arrow.fixed-size-list.size' = '<d>'}
   * (the convention of Lance's own Spark connector), e.g. from {@code CREATE TABLE ...
   * TBLPROPERTIES ('vector.arrow.fixed-size-list.size' = '128') AS SELECT ...}.
   */
  /** The table property {@code enable_stable_row_ids} (lance-spark's name): true or false. */
  static boolean stableRowIds(Map<String, String> properties) {
    return properties != null
        && LanceOptions.bool(
            LanceOptions.ENABLE_STABLE_ROW_IDS, properties.get(LanceOptions.ENABLE_STABLE_ROW_IDS));
  }

  /** The table property {@code data_storage_version} (lance-spark's name): 2.1, 2.2 or stable. */
  static java.util.Optional<String> dataStorageVersion(Map<String, String> properties) {
    return properties == null
        ? java.util.Optional.empty()
        : LanceOptions.dataStorageVersion(properties.get(LanceOptions.DATA_STORAGE_VERSION));
  }

  static Map<String, Integer> vectorColumns(Map<String, String> properties) {
    Map<String, Integer> out = new java.util.HashMap<>();
    if (properties == null) {
      return out;
    }
    String suffix = "." + SparkTypes.FIXED_SIZE_LIST_SIZE;
    properties.forEach(
        (key, value) -> {
          if (key.endsWith(suffix) && key.length() > suffix.length()) {
            String column = key.substring(0, key.length() - suffix.length());
            out.put(column, (int) LanceOptions.positiveLong(key, value));
          }
        });
    return out;
  }

  private static void requireUnpartitioned(Identifier ident, Transform[] partitions) {
    if (partitions != null && partitions.length > 0) {
      throw new UnsupportedOperationException(
          "Cannot partition Lance dataset "
              + ident.name()
              + ": Lance datasets are not partitioned. Remove partitionBy(...).");
    }
  }

  @Override
  public Table alterTable(Identifier ident, TableChange... changes) {
    throw new UnsupportedOperationException(
        "Cannot alter Lance dataset " + ident.name() + " through Spark");
  }

  @Override
  public boolean dropTable(Identifier ident) {
    throw new UnsupportedOperationException(
        "Cannot drop Lance dataset "
            + ident.name()
            + " through Spark; delete its directory instead.");
  }

  @Override
  public void renameTable(Identifier from, Identifier to) {
    throw new UnsupportedOperationException("Cannot rename Lance dataset " + from.name());
  }
}
