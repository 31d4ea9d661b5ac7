package dev.lancelot.spark.search;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.query.VectorSearch;
import dev.lancelot.engine.query.plan.SearchPlan;
import dev.lancelot.engine.query.plan.SearchUnit;
import dev.lancelot.spark.SerializableConfiguration;
import java.util.EnumSet;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The candidates of one planned vector search, as a Spark table: one input partition per search
 * unit. Planning (engine {@code Planner}) happens on the driver when the table is created and reads
 * only metadata; {@link LanceVectorSearch} puts the global top-k merge on top.
 */
final class VectorSearchTable implements SupportsRead {
  private final SearchPlan plan;
  private final StructType schema;
  private final Configuration conf;

  VectorSearchTable(SearchPlan plan, StructType schema, Configuration conf) {
    this.plan = plan;
    this.schema = schema;
    this.conf = conf;
  }

  static VectorSearchTable plan(String location, long version, VectorQuery query, Configuration conf) {
    OpenOptions open = OpenOptions.defaults().withHadoopConf(conf);
    if (version > 0) {
      open = open.withVersion(version);
    }
    try (Dataset ds = Dataset.open(location, open)) {
      SearchPlan plan = VectorSearch.plan(ds, query);
      return new VectorSearchTable(plan, CandidateSchema.of(ds.lanceSchema(), plan.merge().columns()), conf);
    }
  }

  SearchPlan searchPlan() {
    return plan;
  }

  @Override
  public String name() {
    return "lance_vector_search(" + plan.location() + "@v" + plan.version() + ")";
  }

  @Override
  public StructType schema() {
    return schema;
  }

  @Override
  public Set<TableCapability> capabilities() {
    return EnumSet.of(TableCapability.BATCH_READ);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    return () -> new SearchScan();
  }

  private final class SearchScan implements Scan, Batch {
    @Override
    public StructType readSchema() {
      return schema;
    }

    /** SPEC S5: the engine plan, with each unit's Spark partition. */
    @Override
    public String description() {
      StringBuilder sb = new StringBuilder("LanceVectorSearch[").append(plan.location()).append(", version=")
          .append(plan.version()).append(", partitions=").append(plan.units().size()).append("]\n");
      for (int i = 0; i < plan.units().size(); i++) {
        SearchUnit u = plan.units().get(i);
        sb.append("  partition ").append(i).append(" -> ").append(u.id()).append(" fragments=")
            .append(u.fragments()).append('\n');
      }
      sb.append(plan.explain());
      return sb.toString();
    }

    @Override
    public Batch toBatch() {
      return this;
    }

    @Override
    public InputPartition[] planInputPartitions() {
      InputPartition[] out = new InputPartition[plan.units().size()];
      for (int i = 0; i < out.length; i++) {
        out[i] = new VectorSearchPartition(plan, i);
      }
      return out;
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
      return new VectorSearchReaderFactory(new SerializableConfiguration(conf));
    }
  }
}
