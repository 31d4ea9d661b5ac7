package dev.lancelot.spark;

import dev.lancelot.engine.Branch;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentInfo;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.Tag;
import dev.lancelot.engine.VersionInfo;
import dev.lancelot.engine.index.IndexStatistics;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.LocalScan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A read-only table describing a Lance table, named after it as Iceberg names its metadata tables:
 * {@code lance.db.items.versions}, {@code .fragments}, {@code .files}, {@code .indexes}, {@code
 * .tags}, {@code .branches} (and {@code lance.`<path>`.versions} for a table named by its path).
 * {@code fragments}, {@code files} and {@code indexes} describe one version (the latest, or the one
 * {@code VERSION AS OF} names); the others the whole table. Rows come from the manifests and refs
 * alone, read on the driver when the query is planned; no data or index file is read.
 */
public final class MetadataTable implements SupportsRead {
  /** The kinds, by the last part of the name. */
  public enum Kind {
    VERSIONS,
    FRAGMENTS,
    FILES,
    INDEXES,
    TAGS,
    BRANCHES;

    /** The kind a table name asks for, if it is one. */
    public static Optional<Kind> of(String name) {
      for (Kind k : values()) {
        if (k.name().toLowerCase(Locale.ROOT).equals(name)) {
          return Optional.of(k);
        }
      }
      return Optional.empty();
    }

    boolean perVersion() {
      return this == FRAGMENTS || this == FILES || this == INDEXES;
    }
  }

  public static final StructType VERSIONS =
      new StructType()
          .add("version", DataTypes.LongType, false)
          .add("timestamp", DataTypes.TimestampType, false)
          .add("operation", DataTypes.StringType, false)
          .add("rows", DataTypes.LongType, false)
          .add("fragments", DataTypes.IntegerType, false)
          .add("tags", DataTypes.createArrayType(DataTypes.StringType, false), false);

  public static final StructType FRAGMENTS =
      new StructType()
          .add("fragment_id", DataTypes.LongType, false)
          .add("physical_rows", DataTypes.LongType, false)
          .add("deleted_rows", DataTypes.LongType, false)
          .add("rows", DataTypes.LongType, false)
          .add("data_files", DataTypes.createArrayType(DataTypes.StringType, false), false);

  public static final StructType FILES =
      new StructType()
          .add("fragment_id", DataTypes.LongType, false)
          .add("path", DataTypes.StringType, false)
          .add("location", DataTypes.StringType, false);

  public static final StructType INDEXES =
      new StructType()
          .add("name", DataTypes.StringType, false)
          .add("index_type", DataTypes.StringType, false)
          .add("columns", DataTypes.createArrayType(DataTypes.StringType, false), false)
          .add("metric", DataTypes.StringType, true)
          .add("segments", DataTypes.IntegerType, false)
          .add("indexed_fragments", DataTypes.LongType, false)
          .add("indexed_rows", DataTypes.LongType, false)
          .add("unindexed_fragments", DataTypes.LongType, false)
          .add("unindexed_rows", DataTypes.LongType, false)
          .add("size_bytes", DataTypes.LongType, true);

  public static final StructType TAGS =
      new StructType()
          .add("tag", DataTypes.StringType, false)
          .add("branch", DataTypes.StringType, true)
          .add("version", DataTypes.LongType, false)
          .add("created_at", DataTypes.TimestampType, true)
          .add("updated_at", DataTypes.TimestampType, true);

  public static final StructType BRANCHES =
      new StructType()
          .add("branch", DataTypes.StringType, false)
          .add("parent_branch", DataTypes.StringType, true)
          .add("parent_version", DataTypes.LongType, false)
          .add("created_at", DataTypes.TimestampType, false);

  private final String tableName;
  private final Kind kind;
  private final String location;
  private final OptionalLong version;
  private final Configuration conf;

  MetadataTable(
      String tableName, Kind kind, String location, OptionalLong version, Configuration conf) {
    this.tableName = tableName;
    this.kind = kind;
    this.location = location;
    this.version = version;
    this.conf = conf;
  }

  @Override
  public String name() {
    return tableName + "." + kind.name().toLowerCase(Locale.ROOT);
  }

  @Override
  @SuppressWarnings("deprecation") // Spark derives columns() from it on every line
  public StructType schema() {
    return structType();
  }

  private StructType structType() {
    return switch (kind) {
      case VERSIONS -> VERSIONS;
      case FRAGMENTS -> FRAGMENTS;
      case FILES -> FILES;
      case INDEXES -> INDEXES;
      case TAGS -> TAGS;
      case BRANCHES -> BRANCHES;
    };
  }

  @Override
  public Set<TableCapability> capabilities() {
    return EnumSet.of(TableCapability.BATCH_READ);
  }

  /**
   * The metadata table {@code db.items.<kind>} (see {@link MetadataTable.Kind}) when {@code
   * db.items} is a Lance table and no table of that name lives in a namespace {@code db.items};
   * {@code lance.`<path>`.<kind>} for a table named by its path. {@code version}: the one a
   * per-version kind describes.
   */
  static Optional<MetadataTable> resolve(
      LanceCatalog catalog,
      org.apache.spark.sql.connector.catalog.Identifier ident,
      OptionalLong version) {
    String[] ns = ident.namespace();
    Optional<MetadataTable.Kind> kind = MetadataTable.Kind.of(ident.name());
    if (ns.length == 0 || kind.isEmpty()) {
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
        return Optional.empty(); // a table of that name in namespace db.items
      }
      org.apache.spark.sql.connector.catalog.Identifier table =
          org.apache.spark.sql.connector.catalog.Identifier.of(
              java.util.Arrays.copyOf(ns, ns.length - 1), ns[ns.length - 1]);
      parent = catalog.location(table, conf);
      parentName = catalog.quoted(table);
    }
    if (!Dataset.exists(parent, conf)) {
      return Optional.empty();
    }
    return Optional.of(
        new MetadataTable(parentName, kind.get(), parent, version, conf).checkVersioned());
  }

  /** Refuses {@code VERSION AS OF} on a table that describes every version. */
  MetadataTable checkVersioned() {
    if (version.isPresent() && !kind.perVersion()) {
      throw new dev.lancelot.engine.InvalidInputException(
          "Cannot read "
              + name()
              + " VERSION AS OF "
              + version.getAsLong()
              + ": it describes every version of the table. Time travel applies to "
              + "fragments, files and indexes.");
    }
    return this;
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    return () -> new Rows(structType(), rows());
  }

  /** The rows, read now (from the manifests and refs). */
  InternalRow[] rows() {
    OpenOptions open = OpenOptions.defaults().withHadoopConf(conf);
    if (version.isPresent()) {
      open = open.withVersion(version.getAsLong());
    }
    List<InternalRow> out = new ArrayList<>();
    try (Dataset ds = Dataset.open(location, open)) {
      switch (kind) {
        case VERSIONS -> {
          Map<Long, List<UTF8String>> tags = new HashMap<>();
          for (Tag t : ds.tags().list()) {
            if (t.branch().isEmpty()) {
              tags.computeIfAbsent(t.version(), v -> new ArrayList<>())
                  .add(UTF8String.fromString(t.name()));
            }
          }
          for (VersionInfo v : ds.versions()) {
            out.add(
                row(
                    v.version(),
                    micros(v.timestamp()),
                    UTF8String.fromString(v.operation()),
                    v.rows(),
                    v.fragments(),
                    new GenericArrayData(tags.getOrDefault(v.version(), List.of()).toArray())));
          }
        }
        case FRAGMENTS -> {
          for (FragmentInfo f : ds.fragments()) {
            out.add(
                row(
                    f.id(),
                    f.physicalRows(),
                    f.deletedRows(),
                    f.rows(),
                    new GenericArrayData(
                        f.dataFiles().stream().map(UTF8String::fromString).toArray())));
          }
        }
        case FILES -> {
          for (FragmentInfo f : ds.fragments()) {
            for (int i = 0; i < f.dataFiles().size(); i++) {
              out.add(
                  row(
                      f.id(),
                      UTF8String.fromString(f.dataFiles().get(i)),
                      UTF8String.fromString(f.dataFileLocations().get(i))));
            }
          }
        }
        case INDEXES -> {
          for (String name : ds.indexes().names()) {
            out.add(indexRow(IndexStatistics.of(ds, name)));
          }
        }
        case TAGS -> ds.tags().list().forEach(t -> out.add(tagRow(t)));
        case BRANCHES -> {
          for (Branch b : ds.branches()) {
            out.add(
                row(
                    UTF8String.fromString(b.name()),
                    b.parentBranch().map(UTF8String::fromString).orElse(null),
                    b.parentVersion(),
                    micros(b.createdAt())));
          }
        }
      }
    }
    // As UnsafeRows: Spark may ship a local scan's rows in a task, and registers UnsafeRow with
    // Kryo (registrationRequired sessions refuse a GenericInternalRow).
    org.apache.spark.sql.catalyst.expressions.UnsafeProjection unsafe =
        org.apache.spark.sql.catalyst.expressions.UnsafeProjection.create(structType());
    InternalRow[] rows = new InternalRow[out.size()];
    for (int i = 0; i < rows.length; i++) {
      rows[i] = unsafe.apply(out.get(i)).copy();
    }
    return rows;
  }

  /** A row of {@link #INDEXES}. */
  public static InternalRow indexRow(IndexStatistics s) {
    return row(
        UTF8String.fromString(s.name()),
        UTF8String.fromString(s.type().toString()),
        new GenericArrayData(s.columns().stream().map(UTF8String::fromString).toArray()),
        s.metric().map(m -> UTF8String.fromString(m.lanceName())).orElse(null),
        s.segments(),
        s.indexedFragments(),
        s.indexedRows(),
        s.unindexedFragments(),
        s.unindexedRows(),
        s.sizeBytes().isPresent() ? s.sizeBytes().getAsLong() : null);
  }

  /** A row of {@link #TAGS}. */
  public static InternalRow tagRow(Tag t) {
    return row(
        UTF8String.fromString(t.name()),
        t.branch().map(UTF8String::fromString).orElse(null),
        t.version(),
        t.createdAt().map(MetadataTable::micros).orElse(null),
        t.updatedAt().map(MetadataTable::micros).orElse(null));
  }

  /** An instant as a Spark {@code TIMESTAMP} value: microseconds since the epoch. */
  public static Object micros(Instant i) {
    return Math.addExact(Math.multiplyExact(i.getEpochSecond(), 1_000_000L), i.getNano() / 1_000L);
  }

  private static InternalRow row(Object... values) {
    return new GenericInternalRow(values);
  }

  /** The rows, computed on the driver when the scan is built. */
  private static final class Rows implements LocalScan {
    private final StructType schema;
    private final InternalRow[] rows;

    Rows(StructType schema, InternalRow[] rows) {
      this.schema = schema;
      this.rows = rows;
    }

    @Override
    public StructType readSchema() {
      return schema;
    }

    @Override
    public InternalRow[] rows() {
      return rows.clone();
    }

    @Override
    public String description() {
      return "MetadataTable[" + rows.length + " rows]";
    }
  }
}
