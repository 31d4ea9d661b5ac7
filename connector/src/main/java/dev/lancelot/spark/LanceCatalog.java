package dev.lancelot.spark;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.distributed.DistributedWrite;
import dev.lancelot.engine.io.FileEntry;
import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.schema.LanceSchema;
import dev.lancelot.spark.functions.DistanceFunction;
import dev.lancelot.spark.shim.SparkLine;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.NamespaceAlreadyExistsException;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.CatalogV2Util;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.NamespaceChange;
import org.apache.spark.sql.connector.catalog.SupportsNamespaces;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A Spark catalog of Lance datasets laid out as Lance's directory namespace, with lancelot's stored
 * procedures. Configure it with one line (and optionally its root):
 *
 * <pre>
 * spark.sql.catalog.lance=dev.lancelot.spark.LanceCatalog
 * spark.sql.catalog.lance.root=s3a://bucket/lance     # default: spark.sql.warehouse.dir
 * </pre>
 *
 * <ul>
 *   <li><b>Tables.</b> {@code lance.db.items} is the dataset at {@code <root>/db/items.lance} (any
 *       depth of namespace: one directory per part); {@code lance.items} is {@code
 *       <root>/items.lance}. A one-part name that is a path or URI (it contains {@code /} or starts
 *       with a scheme, e.g. {@code lance.`/data/items`} or {@code lance.`s3a://bucket/items`}) is
 *       that location, qualified as {@link LancePathCatalog#qualify} does. Reads (with {@code
 *       VERSION AS OF n}), {@code INSERT INTO} / {@code INSERT OVERWRITE}, and {@code CREATE [OR
 *       REPLACE] TABLE ... AS SELECT} work as through {@link LancePathCatalog}; {@code
 *       TBLPROPERTIES ('<column>.arrow.fixed-size-list.size' = '<d>')} on a CTAS writes that column
 *       as a Lance vector. {@code CREATE TABLE} without {@code AS SELECT} commits an empty dataset
 *       (see {@link #createTable}); {@code DROP TABLE} deletes the dataset ({@link #dropTable});
 *       {@code DELETE FROM} is {@link LanceTable#deleteWhere}; {@code ALTER TABLE} adds, drops and
 *       renames columns and sets table properties ({@link #alterTable}).
 *   <li><b>Namespaces</b> are the directories under the root (not ending in {@code .lance}); {@code
 *       SHOW TABLES IN lance.db} lists the datasets ({@code *.lance} directories) in {@code
 *       <root>/db}; {@code CREATE NAMESPACE} makes the directory; {@code DROP NAMESPACE [CASCADE]}
 *       deletes it ({@link #dropNamespace}).
 *   <li><b>Procedures</b> live in namespace {@code system}: {@code CALL
 *       lance.system.create_index(...)} and the others of {@code
 *       dev.lancelot.spark.procedures.Procedures}, through {@link CatalogProcedures} (Spark 4.0 and
 *       later; Spark 3.5 has no stored procedures, D53).
 * </ul>
 */
public class LanceCatalog extends CatalogProcedures
    implements SupportsNamespaces, org.apache.spark.sql.connector.catalog.FunctionCatalog {
  /** Catalog option: the directory (any Hadoop URI) under which namespaces and tables live. */
  public static final String ROOT = "root";

  /** Directory suffix of a dataset in the directory namespace. */
  public static final String TABLE_SUFFIX = ".lance";

  private String root;

  @Override
  public void initialize(String name, CaseInsensitiveStringMap options) {
    super.initialize(name, options);
    String configured = options.get(ROOT);
    if (configured == null || configured.isBlank()) {
      configured = SparkSession.active().conf().get("spark.sql.warehouse.dir");
    }
    String qualified = qualify(configured.trim());
    this.root =
        qualified.endsWith("/") ? qualified.substring(0, qualified.length() - 1) : qualified;
  }

  /** The qualified root directory of this catalog. */
  public String root() {
    return root;
  }

  @Override
  protected String location(Identifier ident, Configuration conf) {
    if (ident.namespace().length == 0 && TableNames.isPath(ident.name())) {
      return HadoopFileIO.qualify(ident.name(), conf);
    }
    Optional<String> branch = branchLocation(ident, conf);
    if (branch.isPresent()) {
      return branch.get();
    }
    StringBuilder sb = new StringBuilder(root);
    for (String part : ident.namespace()) {
      sb.append('/').append(checkPart(ident, part));
    }
    return sb.append('/').append(checkPart(ident, ident.name())).append(TABLE_SUFFIX).toString();
  }

  /** The name form of a branch: {@code <catalog>.db.items.`branch_<name>`}. */
  public static final String BRANCH_PREFIX = "branch_";

  /**
   * Branch {@code <name>} of table {@code db.items} when {@code ident} is {@code
   * db.items.branch_<name>} and {@code db.items} is a Lance table: the branch's directory ({@code
   * tree/<name>} of the table). A branch that does not exist is an error naming the table's
   * branches.
   */
  private Optional<String> branchLocation(Identifier ident, Configuration conf) {
    String[] ns = ident.namespace();
    if (ns.length == 0
        || !ident.name().startsWith(BRANCH_PREFIX)
        || ident.name().length() == BRANCH_PREFIX.length()) {
      return Optional.empty();
    }
    Identifier table = Identifier.of(java.util.Arrays.copyOf(ns, ns.length - 1), ns[ns.length - 1]);
    String tableLocation = location(table, conf);
    if (!Dataset.exists(tableLocation, conf)) {
      return Optional.empty();
    }
    String branch = ident.name().substring(BRANCH_PREFIX.length());
    try (Dataset ds =
        Dataset.open(
            tableLocation, OpenOptions.defaults().withHadoopConf(conf).withBranch(branch))) {
      return Optional.of(ds.location());
    }
  }

  private String checkPart(Identifier ident, String part) {
    if (part.isEmpty() || part.contains("/") || part.equals(".") || part.equals("..")) {
      throw new InvalidInputException(
          "Cannot resolve table "
              + quoted(ident)
              + " in catalog "
              + name()
              + ": \""
              + part
              + "\" is not a valid namespace or table name. Give a path as a one-part name instead, e.g. "
              + name()
              + ".`/data/items`.");
    }
    return part;
  }

  /**
   * The dataset location of {@code table} as a procedure argument or search target gives it: a path
   * or URI is that location; otherwise a table name relative to this catalog ({@code db.items}; a
   * leading {@code <catalog name>.} is dropped), parsed as Spark parses multi-part names.
   */
  public String locationOf(String table) {
    if (TableNames.isPath(table) && !TableNames.isQuoted(table)) {
      return qualify(table);
    }
    List<String> parts = TableNames.parse(table);
    if (parts.size() > 1 && parts.get(0).equals(name())) {
      parts = parts.subList(1, parts.size());
    }
    if (parts.size() == 1 && TableNames.isPath(parts.get(0))) {
      return qualify(parts.get(0));
    }
    Identifier ident =
        Identifier.of(
            parts.subList(0, parts.size() - 1).toArray(new String[0]), parts.get(parts.size() - 1));
    return location(ident, hadoopConf());
  }

  /**
   * The location of {@code table} when it names a table of a {@link LanceCatalog} configured in
   * {@code spark} ({@code <catalog>.db.items}); empty for paths and other names.
   */
  public static Optional<String> sessionTableLocation(SparkSession spark, String table) {
    if (TableNames.isPath(table) && !TableNames.isQuoted(table)) {
      return Optional.empty();
    }
    List<String> parts;
    try {
      parts = TableNames.parse(table);
    } catch (LancelotException e) {
      return Optional.empty();
    }
    if (parts.size() < 2 || !spark.conf().contains("spark.sql.catalog." + parts.get(0))) {
      return Optional.empty();
    }
    CatalogPlugin plugin = SparkLine.catalog(spark, parts.get(0));
    if (!(plugin instanceof LanceCatalog catalog)) {
      return Optional.empty();
    }
    return Optional.of(catalog.locationOf(table));
  }

  @Override
  protected String stagingLocation(
      Identifier ident, Map<String, String> properties, Configuration conf) {
    String location = properties == null ? null : properties.get("location");
    if (location != null) {
      throw new UnsupportedOperationException(
          "Cannot create "
              + quoted(ident)
              + " with LOCATION '"
              + location
              + "': tables of catalog "
              + name()
              + " live at <root>/<namespace>/<name>"
              + TABLE_SUFFIX
              + ". Remove "
              + "LOCATION, or name the location itself as the table: "
              + name()
              + ".`"
              + location
              + "`.");
    }
    return location(ident, conf);
  }

  @Override
  public Table loadTable(Identifier ident) throws NoSuchTableException {
    Optional<ChangeFeedTable> changes = ChangeFeedTable.resolve(this, ident);
    if (changes.isPresent()) {
      return changes.get();
    }
    Optional<MetadataTable> meta = metadataTable(ident, OptionalLong.empty());
    if (meta.isPresent()) {
      return meta.get();
    }
    return ((LanceTable) super.loadTable(ident)).asSqlTable();
  }

  /** See {@link MetadataTable#resolve}. */
  private Optional<MetadataTable> metadataTable(Identifier ident, OptionalLong version) {
    return MetadataTable.resolve(this, ident, version);
  }

  @Override
  public Table loadTable(Identifier ident, String version) throws NoSuchTableException {
    if (LanceOptions.isVersionNumber(version)) {
      Optional<MetadataTable> meta =
          metadataTable(ident, OptionalLong.of(Long.parseLong(version.trim())));
      if (meta.isPresent()) {
        return meta.get();
      }
    }
    return ((LanceTable) super.loadTable(ident, version)).asSqlTable();
  }

  @Override
  public Table loadTable(Identifier ident, long timestamp) throws NoSuchTableException {
    return ((LanceTable) super.loadTable(ident, timestamp)).asSqlTable();
  }

  /**
   * A table name that holds no dataset does not exist (unlike a bare location of the path catalog).
   */
  @Override
  protected Table missingTable(Identifier ident, String location, Configuration conf)
      throws NoSuchTableException {
    throw new NoSuchTableException(ident);
  }

  /**
   * The datasets ({@code *.lance} directories holding a Lance dataset) directly in {@code
   * <root>/<namespace>}.
   */
  @Override
  public Identifier[] listTables(String[] namespace) throws NoSuchNamespaceException {
    Configuration conf = hadoopConf();
    String dir = namespaceDir(namespace);
    if (namespace.length > 0 && !NamespaceDirectories.exists(dir, conf)) {
      throw new NoSuchNamespaceException(namespace);
    }
    List<Identifier> out = new ArrayList<>();
    for (FileEntry e : new HadoopFileIO(conf).list(dir)) {
      if (e.isDirectory()
          && e.name().endsWith(TABLE_SUFFIX)
          && e.name().length() > TABLE_SUFFIX.length()
          && Dataset.exists(e.location(), conf)) {
        out.add(
            Identifier.of(
                namespace, e.name().substring(0, e.name().length() - TABLE_SUFFIX.length())));
      }
    }
    out.sort((a, b) -> a.name().compareTo(b.name()));
    return out.toArray(new Identifier[0]);
  }

  /**
   * {@code CREATE TABLE [IF NOT EXISTS] t (columns) [USING lance] [TBLPROPERTIES (...)]}: commits
   * an empty dataset (version 1, no fragments) with the columns as its schema; {@code TBLPROPERTIES
   * ('<column>.arrow.fixed-size-list.size' = '<d>')} makes an {@code ARRAY<FLOAT>} column a vector.
   */
  @Override
  public Table createTable(
      Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> properties)
      throws TableAlreadyExistsException {
    String provider = properties == null ? null : properties.get(TableCatalog.PROP_PROVIDER);
    if (provider != null && !provider.equalsIgnoreCase(LanceDataSource.SHORT_NAME)) {
      throw new UnsupportedOperationException(
          "Cannot create "
              + quoted(ident)
              + " USING "
              + provider
              + ": catalog "
              + name()
              + " holds Lance datasets only. Use USING lance, or leave USING out.");
    }
    if (partitions != null && partitions.length > 0) {
      throw new UnsupportedOperationException(
          "Cannot partition "
              + quoted(ident)
              + ": Lance datasets are not "
              + "partitioned. Remove PARTITIONED BY.");
    }
    Configuration conf = hadoopConf();
    String location = stagingLocation(ident, properties, conf);
    if (Dataset.exists(location, conf)) {
      throw new TableAlreadyExistsException(ident);
    }
    StructType schema = CatalogV2Util.v2ColumnsToStructType(columns);
    LanceSchema lanceSchema =
        LanceSchema.fromArrow(
                SparkTypes.toArrow(
                    schema, vectorColumns(properties), LanceOptions.blobColumns(properties)))
            .withBlobEncodingFor(
                dev.lancelot.engine.WriteOptions.of(WriteMode.CREATE)
                    .withDataStorageVersion(dataStorageVersion(properties).orElse(null))
                    .resolvedFor(null)
                    .dataStorageVersion());
    Dataset.evictCached(location);
    DistributedWrite.commit(
            location,
            conf,
            lanceSchema,
            List.of(),
            dev.lancelot.engine.WriteOptions.of(WriteMode.CREATE)
                .enableStableRowIds(stableRowIds(properties))
                .withDataStorageVersion(dataStorageVersion(properties).orElse(null)),
            0)
        .close();
    return LanceTable.load(location, 0, conf).asSqlTable();
  }

  /**
   * {@code ALTER TABLE}: {@code ADD COLUMNS}, {@code DROP COLUMN}, {@code RENAME COLUMN} and {@code
   * SET/UNSET TBLPROPERTIES}, each statement committed as one Lance version (see {@link
   * LanceTableChanges}); anything else is refused naming the change.
   */
  @Override
  public Table alterTable(Identifier ident, TableChange... changes) {
    Configuration conf = hadoopConf();
    String location = location(ident, conf);
    if (!Dataset.exists(
        location, conf)) { // Spark resolved the table first: it was dropped meanwhile
      throw new LancelotException(
          "Cannot alter " + quoted(ident) + ": there is no dataset at " + location + ".");
    }
    try (Dataset latest =
        Dataset.open(location, dev.lancelot.engine.OpenOptions.defaults().withHadoopConf(conf))) {
      LanceTableChanges.apply(quoted(ident), latest, changes);
    }
    return LanceTable.load(location, 0, conf).asSqlTable();
  }

  /**
   * {@code DROP TABLE}: deletes the dataset's directory, every version with it (Lance keeps no
   * other copy, so {@code PURGE} changes nothing). A table named by its path is refused: the
   * catalog only removes what it laid out itself.
   */
  @Override
  public boolean dropTable(Identifier ident) {
    if (ident.namespace().length == 0 && TableNames.isPath(ident.name())) {
      throw new UnsupportedOperationException(
          "Cannot drop "
              + quoted(ident)
              + ": catalog "
              + name()
              + " drops only "
              + "the tables it names (<root>/<namespace>/<name>"
              + TABLE_SUFFIX
              + "), not a dataset named by its path. "
              + "Delete the directory "
              + ident.name()
              + " instead.");
    }
    Configuration conf = hadoopConf();
    if (branchLocation(ident, conf).isPresent()) {
      String[] ns = ident.namespace();
      throw new InvalidInputException(
          "Cannot drop "
              + quoted(ident)
              + ": it is a branch of table "
              + String.join(".", ns)
              + ", and deleting its directory would leave its ref (and any branch inside it) "
              + "behind. Delete it with CALL "
              + name()
              + ".system.delete_branch(table => '"
              + String.join(".", ns)
              + "', branch => '"
              + ident.name().substring(BRANCH_PREFIX.length())
              + "').");
    }
    String location = location(ident, conf);
    if (!Dataset.exists(location, conf)) {
      return false;
    }
    Path path = new Path(location);
    try {
      boolean deleted = path.getFileSystem(conf).delete(path, true);
      Dataset.evictCached(location);
      return deleted;
    } catch (IOException e) {
      throw new LancelotException(
          "Cannot drop " + quoted(ident) + ": deleting " + location + " failed: " + e.getMessage(),
          e);
    }
  }

  /** {@code DROP TABLE ... PURGE}: the same as {@link #dropTable}; there is no trash to skip. */
  @Override
  public boolean purgeTable(Identifier ident) {
    return dropTable(ident);
  }

  @Override
  public void renameTable(Identifier from, Identifier to) {
    throw new UnsupportedOperationException(
        "ALTER TABLE ... RENAME TO is not supported yet by catalog "
            + name()
            + " (table "
            + quoted(from)
            + ").");
  }

  // ---- namespaces: directories under the root

  private String namespaceDir(String[] namespace) {
    StringBuilder sb = new StringBuilder(root);
    for (String part : namespace) {
      sb.append('/').append(checkPart(Identifier.of(namespace, ""), part));
    }
    return sb.toString();
  }

  @Override
  public String[][] listNamespaces() throws NoSuchNamespaceException {
    return listNamespaces(new String[0]);
  }

  @Override
  public String[][] listNamespaces(String[] namespace) throws NoSuchNamespaceException {
    String dir = namespaceDir(namespace);
    if (namespace.length > 0 && !NamespaceDirectories.exists(dir, hadoopConf())) {
      throw new NoSuchNamespaceException(namespace);
    }
    return NamespaceDirectories.children(dir, namespace, hadoopConf());
  }

  @Override
  public boolean namespaceExists(String[] namespace) {
    return namespace.length == 0
        || NamespaceDirectories.exists(namespaceDir(namespace), hadoopConf());
  }

  @Override
  public Map<String, String> loadNamespaceMetadata(String[] namespace)
      throws NoSuchNamespaceException {
    if (!namespaceExists(namespace)) {
      throw new NoSuchNamespaceException(namespace);
    }
    return Map.of("location", namespaceDir(namespace));
  }

  @Override
  public void createNamespace(String[] namespace, Map<String, String> metadata)
      throws NamespaceAlreadyExistsException {
    String dir = namespaceDir(namespace);
    if (NamespaceDirectories.exists(dir, hadoopConf())) {
      throw new NamespaceAlreadyExistsException(namespace);
    }
    NamespaceDirectories.create(dir, String.join(".", namespace), hadoopConf());
  }

  @Override
  public void alterNamespace(String[] namespace, NamespaceChange... changes) {
    throw new UnsupportedOperationException(
        "ALTER NAMESPACE is not supported yet by catalog " + name() + ".");
  }

  /**
   * {@code DROP NAMESPACE [IF EXISTS] lance.db [CASCADE]}: deletes the namespace's directory (see
   * {@link NamespaceDirectories#drop}). {@code system} (the procedures') and the root cannot be
   * dropped.
   */
  @Override
  public boolean dropNamespace(String[] namespace, boolean cascade) {
    if (namespace.length == 0 || Arrays.equals(namespace, SYSTEM)) {
      throw new UnsupportedOperationException(
          "Cannot drop namespace "
              + (namespace.length == 0 ? "(the root)" : "system")
              + " of catalog "
              + name()
              + ".");
    }
    return NamespaceDirectories.drop(
        namespaceDir(namespace),
        String.join(".", namespace),
        name() + "." + String.join(".", namespace),
        cascade,
        hadoopConf());
  }

  /**
   * The functions of namespace {@code system}: {@code l2_distance}, {@code cosine_distance}, {@code
   * dot_distance} ({@link DistanceFunction}); other namespaces have none.
   */
  @Override
  public Identifier[] listFunctions(String[] namespace) throws NoSuchNamespaceException {
    if (Arrays.equals(namespace, SYSTEM)) {
      return DistanceFunction.NAMES.stream()
          .map(n -> Identifier.of(SYSTEM, n))
          .toArray(Identifier[]::new);
    }
    if (!namespaceExists(namespace)) {
      throw new NoSuchNamespaceException(namespace);
    }
    return new Identifier[0];
  }

  @Override
  public org.apache.spark.sql.connector.catalog.functions.UnboundFunction loadFunction(
      Identifier ident) throws org.apache.spark.sql.catalyst.analysis.NoSuchFunctionException {
    if (Arrays.equals(ident.namespace(), SYSTEM)) {
      Optional<DistanceFunction> f = DistanceFunction.named(ident.name());
      if (f.isPresent()) {
        return f.get();
      }
    }
    throw new org.apache.spark.sql.catalyst.analysis.NoSuchFunctionException(ident);
  }

  private static final String[] SYSTEM = {"system"};

  String quoted(Identifier ident) {
    StringBuilder sb = new StringBuilder(name());
    for (String part : ident.namespace()) {
      sb.append('.').append(part);
    }
    return sb.append('.').append(ident.name()).toString();
  }
}
