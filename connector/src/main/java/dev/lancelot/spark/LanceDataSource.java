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
    LanceOptions o = LanceOptions.parse(options);
    return LanceTable.load(
            LancePathCatalog.qualify(o.path()),
            o.version().orElse(0),
            LancePathCatalog.hadoopConf())
        .schema();
  }

  @Override
  public Table getTable(
      StructType schema, Transform[] partitioning, Map<String, String> properties) {
    LanceOptions o = LanceOptions.parse(new CaseInsensitiveStringMap(properties));
    return LanceTable.load(
        LancePathCatalog.qualify(o.path()), o.version().orElse(0), LancePathCatalog.hadoopConf());
  }

  @Override
  public Identifier extractIdentifier(CaseInsensitiveStringMap options) {
    // the table name is the qualified location, so the catalog, the plan and the tasks all see one
    // URI
    return Identifier.of(
        new String[0], LancePathCatalog.qualify(LanceOptions.parse(options).path()));
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
    String v =
        options.containsKey(LanceOptions.VERSION)
            ? options.get(LanceOptions.VERSION)
            : options.get(LanceOptions.VERSION_AS_OF);
    return Optional.ofNullable(v);
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
