package dev.lancelot.spark;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.io.HadoopFileIO;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.SupportsCatalogOptions;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The {@code lance} data source: {@code spark.read.format("lance").load(path)} and {@code
 * df.write.format("lance").mode(...).save(path)}. Paths resolve through {@link LancePathCatalog},
 * registered on first use as catalog {@value #CATALOG}.
 */
public final class LanceDataSource implements SupportsCatalogOptions, DataSourceRegister {
  public static final String SHORT_NAME = "lance";
  public static final String CATALOG = "lance_paths";

  @Override
  public String shortName() {
    return SHORT_NAME;
  }

  @Override
  public StructType inferSchema(CaseInsensitiveStringMap options) {
    return table(LanceOptions.parse(options)).schema();
  }

  @Override
  public Table getTable(
      StructType schema, Transform[] partitioning, Map<String, String> properties) {
    return table(LanceOptions.parse(new CaseInsensitiveStringMap(properties)));
  }

  /** The table the options name: a version, a tag's version, or a branch (latest or version). */
  private static LanceTable table(LanceOptions o) {
    Configuration conf = LancePathCatalog.hadoopConf();
    if (o.tag().isPresent()) {
      return LancePathCatalog.loadTag(LancePathCatalog.qualify(o.path()), o.tag().get(), conf);
    }
    return LanceTable.load(o.readLocation(conf), o.version().orElse(0), conf);
  }

  /**
   * The table name is the qualified location (a branch's directory with option {@code branch}), so
   * the catalog, the plan and the tasks all see one URI.
   */
  @Override
  public Identifier extractIdentifier(CaseInsensitiveStringMap options) {
    return Identifier.of(
        new String[0], LanceOptions.parse(options).readLocation(LancePathCatalog.hadoopConf()));
  }

  @Override
  public String extractCatalog(CaseInsensitiveStringMap options) {
    SparkSession spark = SparkSession.active();
    String key = "spark.sql.catalog." + CATALOG;
    if (!spark.conf().contains(key)) {
      spark.conf().set(key, LancePathCatalog.class.getName());
    }
    return CATALOG;
  }

  /**
   * Spark calls this on the read path only (never for writes), right before loading the table: the
   * place to refuse reading a location that holds no dataset, with the engine's message.
   */
  @Override
  public Optional<String> extractTimeTravelVersion(CaseInsensitiveStringMap options) {
    LanceOptions o = LanceOptions.parse(options);
    Configuration conf = LancePathCatalog.hadoopConf();
    String location = HadoopFileIO.qualify(o.path(), conf);
    if (!Dataset.exists(location, conf)) {
      Dataset.open(location, OpenOptions.defaults().withHadoopConf(conf)).close();
    }
    if (o.tag().isPresent()) {
      return o.tag(); // LancePathCatalog#loadTable(Identifier, String) reads a tag name
    }
    return o.version().isPresent()
        ? Optional.of(Long.toString(o.version().getAsLong()))
        : Optional.empty();
  }

  /**
   * Option {@code timestampAsOf}: Spark parses it in the session time zone and loads the table
   * through {@link LancePathCatalog#loadTable(Identifier, long)}.
   */
  @Override
  public Optional<String> extractTimeTravelTimestamp(CaseInsensitiveStringMap options) {
    return Optional.ofNullable(options.get(LanceOptions.TIMESTAMP_AS_OF));
  }
}
