package dev.lancelot.spark.search;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.distributed.SearchTask;
import dev.lancelot.engine.distributed.VectorSearchPlan;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.spark.SparkTypes;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * One planned vector search as a Spark table whose rows are the search's answer: the global top-k
 * per query vector ({@code query_index} for a batch, the result columns, {@code _distance}, {@code
 * _rowid} when asked — SPEC Q13). Planning (engine {@code Planner}) happens on the driver when the
 * table is created and reads only metadata. Its scan is not read through Spark's batch-scan path:
 * {@link VectorSearchStrategy} plans it as a {@link VectorSearchExec}, which runs one Spark task
 * per search unit and merges on the driver.
 */
final class VectorSearchTable implements SupportsRead {
  private final VectorSearchPlan plan;
  private final StructType schema;
  private final Configuration conf;

  VectorSearchTable(VectorSearchPlan plan, StructType schema, Configuration conf) {
    this.plan = plan;
    this.schema = schema;
    this.conf = conf;
  }

  /**
   * Plans on {@code version} (0 = the latest, found by one listing) from the driver's dataset
   * cache.
   */
  static VectorSearchTable plan(
      String location, long version, VectorQuery query, Configuration conf) {
    Dataset ds =
        version > 0
            ? Dataset.openCached(location, version, conf)
            : Dataset.openLatestCached(location, conf);
    VectorSearchPlan plan = VectorSearchPlan.plan(ds, query);
    return new VectorSearchTable(plan, resultSchema(ds, plan), conf);
  }

  /** The Spark schema of the engine's result rows ({@link VectorSearchPlan#resultSchema}). */
  static StructType resultSchema(Dataset ds, VectorSearchPlan plan) {
    List<StructField> fields = new ArrayList<>();
    for (org.apache.arrow.vector.types.pojo.Field f : plan.resultSchema(ds).getFields()) {
      fields.add(SparkTypes.toSpark(f));
    }
    return new StructType(fields.toArray(new StructField[0]));
  }

  VectorSearchPlan searchPlan() {
    return plan;
  }

  Configuration conf() {
    return conf;
  }

  @Override
  public String name() {
    return "lance_vector_search(" + plan.location() + "@v" + plan.version() + ")";
  }

  @Override
  @SuppressWarnings(
      "deprecation") // Table.schema() is deprecated for columns(), which Spark derives from it
  public StructType schema() {
    return schema;
  }

  @Override
  public Set<TableCapability> capabilities() {
    return EnumSet.of(TableCapability.BATCH_READ);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    return () -> new SearchScan(this);
  }

  /**
   * The scan of a search: carries the table to {@link VectorSearchStrategy}; describes the plan.
   */
  static final class SearchScan implements Scan {
    private final VectorSearchTable table;

    SearchScan(VectorSearchTable table) {
      this.table = table;
    }

    VectorSearchTable table() {
      return table;
    }

    @Override
    public StructType readSchema() {
      return table.schema;
    }

    /** SPEC S5: the engine plan, with each unit's Spark partition. */
    @Override
    public String description() {
      VectorSearchPlan plan = table.plan;
      StringBuilder sb =
          new StringBuilder("LanceVectorSearch[")
              .append(plan.location())
              .append(", version=")
              .append(plan.version())
              .append(", partitions=")
              .append(plan.taskCount())
              .append(", merge=driver]\n");
      for (SearchTask t : plan.tasks()) {
        sb.append("  partition ")
            .append(t.index())
            .append(" -> ")
            .append(t.id())
            .append(" fragments=")
            .append(t.fragments())
            .append('\n');
      }
      sb.append(plan.explain());
      return sb.toString();
    }

    @Override
    public Batch toBatch() {
      throw new IllegalStateException(
          "A vector search is planned by VectorSearchStrategy, not read as a batch "
              + "scan: the session lacks the lancelot planner strategy. Set spark.sql.extensions="
              + "dev.lancelot.spark.LanceSparkExtensions.");
    }
  }
}
