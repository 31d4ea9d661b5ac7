package dev.lancelot.spark;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentInfo;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.expr.Predicate;
import dev.lancelot.engine.expr.Predicates;
import dev.lancelot.spark.read.LanceScanBuilder;
import dev.lancelot.spark.read.LanceStreamOptions;
import dev.lancelot.spark.read.MetadataColumns;
import dev.lancelot.spark.read.SparkPredicates;
import dev.lancelot.spark.write.LanceRowLevelOperation;
import dev.lancelot.spark.write.LanceWriteBuilder;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.connector.catalog.MetadataColumn;
import org.apache.spark.sql.connector.catalog.SupportsDeleteV2;
import org.apache.spark.sql.connector.catalog.SupportsMetadataColumns;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsRowLevelOperations;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.RowLevelOperationBuilder;
import org.apache.spark.sql.connector.write.RowLevelOperationInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A Lance dataset as a Spark table: one version for reads (the latest, or the one asked for), with
 * the metadata columns {@code _rowaddr}, {@code _rowid} and {@code _fragid}; the target of appends
 * and overwrites, of {@code DELETE FROM ... WHERE} (one new version with deletion files, planned by
 * the engine when it evaluates the condition exactly), and of row-level UPDATE, MERGE INTO and
 * other DELETEs ({@link LanceRowLevelOperation}: Spark finds the rows, one version with deletion
 * files and new fragments). A table for a location without a dataset yet has no columns and {@link
 * #exists()} false; writing to it creates the dataset.
 */
public class LanceTable
    implements SupportsRead,
        SupportsWrite,
        SupportsDeleteV2,
        SupportsMetadataColumns,
        SupportsRowLevelOperations {
  private final String location;
  private final long version;
  private final StructType schema;
  private final Map<String, String> properties;
  private final Configuration hadoopConf;
  private final org.apache.arrow.vector.types.pojo.Schema arrowSchema;
  private boolean sqlTable;

  /** A filter its scans apply besides Spark's pushed ones ({@link #withScanFilter}), or null. */
  private Predicate scanFilter;

  LanceTable(
      String location,
      long version,
      org.apache.arrow.vector.types.pojo.Schema arrowSchema,
      Map<String, String> properties,
      Configuration hadoopConf) {
    this.location = location;
    this.version = version;
    this.arrowSchema = arrowSchema;
    this.schema = SparkTypes.toSpark(arrowSchema);
    this.properties = properties;
    this.hadoopConf = hadoopConf;
  }

  /**
   * Describes the dataset at {@code location} (at {@code version} when positive, else the latest),
   * opened through the process-wide dataset cache, which the table's scans then share.
   */
  static LanceTable load(String location, long version, Configuration conf) {
    Dataset ds =
        version > 0
            ? Dataset.openCached(location, version, conf)
            : Dataset.openLatestCached(location, conf);
    Map<String, String> props =
        new HashMap<>(ds.config()); // SET TBLPROPERTIES (Lance's table config)
    props.put("location", ds.location());
    props.put("version", Long.toString(ds.version()));
    props.put("format", "lance " + ds.dataStorageVersion());
    long rows = 0;
    for (FragmentInfo f : ds.fragments()) {
      rows += f.physicalRows() - f.deletedRows();
    }
    props.put("fragments", Integer.toString(ds.fragments().size()));
    props.put("rows", Long.toString(rows));
    props.put("indexes", String.join(",", ds.indexes().names()));
    return new LanceTable(ds.location(), ds.version(), ds.schema(), props, conf);
  }

  static LanceTable absent(String location, Configuration conf) {
    return new LanceTable(
        location,
        0,
        new org.apache.arrow.vector.types.pojo.Schema(java.util.List.of()),
        Map.of("location", location),
        conf);
  }

  @Override
  public String name() {
    return "lance.`" + location + "`" + (version > 0 ? "@v" + version : "");
  }

  @Override
  @SuppressWarnings(
      "deprecation") // Table.schema() is deprecated for columns(), which Spark derives from it
  public StructType schema() {
    return schema;
  }

  @Override
  public Map<String, String> properties() {
    return properties;
  }

  /**
   * This table as a table of {@link LanceCatalog} (D21): writes go through Spark's own output
   * resolution, so {@code INSERT INTO t VALUES ...} / {@code INSERT INTO t SELECT ...} match
   * columns by position and cast as SQL does, and by-name writes are checked by Spark. Tables of
   * the path catalog accept any schema instead and check appends themselves (D2).
   */
  LanceTable asSqlTable() {
    LanceTable t = new LanceTable(location, version, arrowSchema, properties, hadoopConf);
    t.sqlTable = true;
    t.scanFilter = scanFilter;
    return t;
  }

  /**
   * This table whose scans also apply {@code filter} (an engine predicate selecting a superset of
   * the rows the query keeps, so Spark's own filter above the scan stays): how predicates Spark
   * does not push to a data source reach the scan's index selection ({@code
   * ArrayPredicatePushDown}, decision D77).
   */
  public LanceTable withScanFilter(Predicate filter) {
    LanceTable t = new LanceTable(location, version, arrowSchema, properties, hadoopConf);
    t.sqlTable = sqlTable;
    t.scanFilter = filter;
    return t;
  }

  /** The filter added by {@link #withScanFilter}, or null. */
  public Predicate scanFilter() {
    return scanFilter;
  }

  @Override
  public Set<TableCapability> capabilities() {
    EnumSet<TableCapability> caps =
        EnumSet.of(
            TableCapability.BATCH_READ,
            TableCapability.BATCH_WRITE,
            TableCapability.TRUNCATE,
            TableCapability.STREAMING_WRITE,
            TableCapability.MICRO_BATCH_READ);
    if (!sqlTable || !exists()) {
      caps.add(TableCapability.ACCEPT_ANY_SCHEMA);
    }
    return caps;
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    return new LanceScanBuilder(
        this,
        LanceOptions.parse(withPath(options)),
        LanceStreamOptions.parse(options.asCaseSensitiveMap()));
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    return new LanceWriteBuilder(this, info, LanceOptions.parse(withPath(info.options())), false);
  }

  @Override
  public MetadataColumn[] metadataColumns() {
    return MetadataColumns.offered(arrowSchema);
  }

  @Override
  public RowLevelOperationBuilder newRowLevelOperationBuilder(RowLevelOperationInfo info) {
    if (!exists()) {
      throw new InvalidInputException(
          "Cannot " + info.command() + " " + name() + ": no dataset exists there.");
    }
    return () -> new LanceRowLevelOperation(this, info.command());
  }

  /**
   * True when the engine evaluates the condition exactly, so that the delete is a metadata-only
   * plan ({@link #deleteWhere}); otherwise Spark deletes through the row-level plan, which finds
   * the rows by evaluating the condition itself.
   */
  @Override
  public boolean canDeleteWhere(
      org.apache.spark.sql.connector.expressions.filter.Predicate[] predicates) {
    return exactDeleteFilter(predicates).isPresent();
  }

  /**
   * Commits one version deleting the matching rows of the latest version (none when nothing
   * matches).
   */
  @Override
  public void deleteWhere(
      org.apache.spark.sql.connector.expressions.filter.Predicate[] predicates) {
    String filter = deleteFilter(predicates);
    try (Dataset ds = Dataset.open(location, OpenOptions.defaults().withHadoopConf(hadoopConf))) {
      ds.delete(filter); // the new version shares ds's storage; closing ds releases both
    }
  }

  /** The engine filter (SQL) for a DELETE condition; refuses a condition that has none. */
  private String deleteFilter(
      org.apache.spark.sql.connector.expressions.filter.Predicate[] predicates) {
    return exactDeleteFilter(predicates)
        .orElseThrow(
            () ->
                new InvalidInputException(
                    "Cannot delete from "
                        + name()
                        + " where "
                        + java.util.Arrays.toString(predicates)
                        + ": Lance cannot evaluate this condition exactly, "
                        + "and a delete never approximates."));
  }

  /** The engine filter (SQL) for a DELETE condition, when every predicate translates exactly. */
  private Optional<String> exactDeleteFilter(
      org.apache.spark.sql.connector.expressions.filter.Predicate[] predicates) {
    List<Predicate> translated = new ArrayList<>();
    for (org.apache.spark.sql.connector.expressions.filter.Predicate p : predicates) {
      Optional<SparkPredicates.Translation> engine =
          SparkPredicates.translate(p, arrowSchema, false);
      if (engine.isEmpty() || !engine.get().exact()) {
        return Optional.empty();
      }
      translated.add(engine.get().predicate());
    }
    return Optional.of(Predicates.and(translated).toSql());
  }

  /**
   * {@code options} with this table's location as the path option, as {@link LanceOptions#parse}
   * expects.
   */
  public CaseInsensitiveStringMap withPathOption(CaseInsensitiveStringMap options) {
    return withPath(options);
  }

  CaseInsensitiveStringMap withPath(CaseInsensitiveStringMap options) {
    Map<String, String> m = new HashMap<>(options.asCaseSensitiveMap());
    m.put(LanceOptions.PATH, location);
    return new CaseInsensitiveStringMap(m);
  }

  public String location() {
    return location;
  }

  /** The dataset version read; 0 when no dataset exists yet. */
  public long datasetVersion() {
    return version;
  }

  /**
   * The version as Spark shows it (Spark 4.1 tables report a version string). {@code
   * Table.version()} exists from Spark 4.1 on; the 4.0 line compiles this class too (D50), so no
   * {@code @Override}.
   */
  @SuppressWarnings("MissingOverride")
  public String version() {
    return Long.toString(version);
  }

  public boolean exists() {
    return version > 0;
  }

  /**
   * The dataset's Arrow schema (what the engine reads), from which {@link #schema()} is derived.
   */
  public org.apache.arrow.vector.types.pojo.Schema arrowSchema() {
    return arrowSchema;
  }

  public Configuration hadoopConf() {
    return hadoopConf;
  }

  /**
   * The table's version from the process-wide dataset cache: shared, so the caller must not close
   * it. A table loaded where no dataset existed yet resolves the latest version now (and fails
   * clearly when there still is none).
   */
  public Dataset dataset() {
    long v = version;
    if (v <= 0) {
      try (Dataset ds = openDataset()) {
        v = ds.version();
      }
    }
    return Dataset.openCached(location, v, hadoopConf);
  }

  public Dataset openDataset() {
    OpenOptions open = OpenOptions.defaults().withHadoopConf(hadoopConf);
    // version 0: no dataset existed when the table was loaded; opening reports that clearly.
    return Dataset.open(location, version > 0 ? open.withVersion(version) : open);
  }
}
