package dev.lancelot.spark.search;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.distributed.SearchTask;
import dev.lancelot.engine.distributed.VectorSearchPlan;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.spark.SparkTypes;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * One planned vector search, as the Spark plan nodes carry it: the engine's {@link
 * VectorSearchPlan} (made on the driver from metadata only), the Spark schema of its answer (the
 * global top-k per query vector: {@code query_index} for a batch, the result columns, {@code
 * _distance}, {@code _rowid} when asked — SPEC Q13) and the Hadoop configuration the tasks open the
 * dataset with. {@link VectorSearchRelation} is its logical node, {@link VectorSearchExec} runs it.
 */
final class PlannedSearch {
  private final VectorSearchPlan plan;
  private final StructType schema;
  private final Configuration conf;

  /** What the search answers, for EXPLAIN, when a rule planned it for a query (null otherwise). */
  private final String answers;

  private PlannedSearch(
      VectorSearchPlan plan, StructType schema, Configuration conf, String answers) {
    this.plan = plan;
    this.schema = schema;
    this.conf = conf;
    this.answers = answers;
  }

  /**
   * Plans on {@code version} (0 = the latest, found by one listing) from the driver's dataset
   * cache.
   */
  static PlannedSearch plan(String location, long version, VectorQuery query, Configuration conf) {
    return plan(location, version, query, conf, null);
  }

  /** Same, noting for EXPLAIN what part of a query the search answers. */
  static PlannedSearch plan(
      String location, long version, VectorQuery query, Configuration conf, String answers) {
    Dataset ds =
        version > 0
            ? Dataset.openCached(location, version, conf)
            : Dataset.openLatestCached(location, conf);
    VectorSearchPlan plan = VectorSearchPlan.plan(ds, query);
    return new PlannedSearch(plan, resultSchema(ds, plan), conf, answers);
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

  StructType schema() {
    return schema;
  }

  Configuration conf() {
    return conf;
  }

  /** The node's name in plans: the dataset and version searched. */
  String name() {
    return "lance_vector_search(" + plan.location() + "@v" + plan.version() + ")";
  }

  /** SPEC S5: the engine plan, with each task's Spark partition. */
  String description() {
    StringBuilder sb =
        new StringBuilder("LanceVectorSearch[")
            .append(plan.location())
            .append(", version=")
            .append(plan.version())
            .append(", partitions=")
            .append(plan.taskCount())
            .append(", merge=driver")
            .append(answers == null ? "" : ", answers=" + answers)
            .append("]\n");
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
}
