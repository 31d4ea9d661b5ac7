package dev.lancelot.spark.search;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.distributed.FullTextSearchPlan;
import dev.lancelot.engine.index.text.FullTextQuery;
import dev.lancelot.spark.ScalaCollections;
import dev.lancelot.spark.SparkTypes;
import dev.lancelot.spark.scalashim.LeafLogicalPlan;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.catalyst.analysis.MultiInstanceRelation;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.types.DataTypeUtils;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.collection.Seq;

/**
 * The logical plan node of a full-text search (decision D71): a leaf whose output is the search's
 * answer — the result columns, {@code _score}, {@code _rowid} when asked — planned by {@link
 * VectorSearchStrategy} as a {@link FullTextSearchExec}. It carries the engine's plan, made on the
 * driver when the query is analysed.
 */
public final class FullTextSearchRelation extends LeafLogicalPlan implements MultiInstanceRelation {
  private static final long serialVersionUID = 1L;

  /** The engine plan, the Spark schema of its answer and the configuration tasks open with. */
  record Planned(FullTextSearchPlan plan, StructType schema, Configuration conf) {}

  private final transient Planned search;
  private final scala.collection.immutable.List<Attribute> output;

  /** Public for Spark, which copies plan nodes through their public constructor. */
  public FullTextSearchRelation(Planned search, Seq<? extends Attribute> output) {
    this.search = search;
    this.output = ScalaCollections.list(ScalaCollections.toJava(output));
  }

  /** Plans {@code query} on {@code version} (0 = the latest) from the driver's dataset cache. */
  static Planned plan(String location, long version, FullTextQuery query, Configuration conf) {
    Dataset ds =
        version > 0
            ? Dataset.openCached(location, version, conf)
            : Dataset.openLatestCached(location, conf);
    FullTextSearchPlan plan = FullTextSearchPlan.plan(ds, query);
    List<StructField> fields = new ArrayList<>();
    for (org.apache.arrow.vector.types.pojo.Field f : plan.resultSchema(ds).getFields()) {
      fields.add(SparkTypes.toSpark(f));
    }
    return new Planned(plan, new StructType(fields.toArray(new StructField[0])), conf);
  }

  static FullTextSearchRelation of(Planned search) {
    return new FullTextSearchRelation(search, DataTypeUtils.toAttributes(search.schema()));
  }

  Planned search() {
    return search;
  }

  @Override
  public scala.collection.immutable.List<Attribute> output() {
    return output;
  }

  @Override
  public scala.collection.immutable.List<LogicalPlan> children() {
    return ScalaCollections.empty();
  }

  @Override
  public LogicalPlan newInstance() {
    List<Attribute> fresh = new ArrayList<>();
    ScalaCollections.toJava(output).forEach(a -> fresh.add(a.newInstance()));
    return new FullTextSearchRelation(search, ScalaCollections.list(fresh));
  }

  @Override
  public String nodeName() {
    return "LanceFullTextSearch";
  }

  @Override
  public String simpleString(int maxFields) {
    FullTextSearchPlan p = search.plan();
    return "lance_fts_search("
        + p.location()
        + "@v"
        + p.version()
        + ") "
        + output.mkString("[", ", ", "]");
  }

  @Override
  public int productArity() {
    return 2;
  }

  @Override
  public Object productElement(int n) {
    return switch (n) {
      case 0 -> search;
      case 1 -> output;
      default -> throw new IndexOutOfBoundsException(n);
    };
  }

  @Override
  public boolean canEqual(Object that) {
    return that instanceof FullTextSearchRelation;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FullTextSearchRelation r
        && java.util.Objects.equals(r.search, search)
        && r.output.equals(output);
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hashCode(search) * 31 + output.hashCode();
  }
}
