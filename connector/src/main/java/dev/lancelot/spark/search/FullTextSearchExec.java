package dev.lancelot.spark.search;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.distributed.FullTextSearchPlan;
import dev.lancelot.engine.distributed.FullTextSearchTask;
import dev.lancelot.engine.distributed.FullTextTaskResult;
import dev.lancelot.spark.ConfigurationBroadcasts;
import dev.lancelot.spark.ScalaCollections;
import dev.lancelot.spark.SerializableConfiguration;
import dev.lancelot.spark.read.LanceColumnVector;
import dev.lancelot.spark.scalashim.LeafExecPlan;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.execution.SQLExecution;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.execution.metric.SQLMetrics;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.collection.Seq;

/**
 * The physical plan of a full-text search (decision D71): one Spark task per partition of the
 * inverted index ({@link FullTextSearchTask}, shipped as bytes) returns that partition's best
 * {@code k} row ids and scores (bytes); the driver merges them with the engine's merge ({@link
 * FullTextSearchPlan#finish}) and reads the result columns of the final rows only. No shuffle.
 */
public final class FullTextSearchExec extends LeafExecPlan {
  private static final long serialVersionUID = 1L;
  private final transient FullTextSearchRelation.Planned search;
  private final scala.collection.immutable.List<Attribute> output;
  private transient scala.collection.immutable.Map<String, SQLMetric> metrics;

  /** Public for Spark, which copies plan nodes through their public constructor. */
  public FullTextSearchExec(
      FullTextSearchRelation.Planned search, Seq<? extends Attribute> output) {
    this.search = search;
    this.output = ScalaCollections.list(ScalaCollections.toJava(output));
  }

  @Override
  public scala.collection.immutable.List<Attribute> output() {
    return output;
  }

  @Override
  public scala.collection.immutable.List<SparkPlan> children() {
    return ScalaCollections.empty();
  }

  @Override
  public scala.collection.immutable.Map<String, SQLMetric> metrics() {
    if (metrics == null) {
      Map<String, SQLMetric> m = new LinkedHashMap<>();
      m.put("tasks", SQLMetrics.createMetric(sparkContext(), "index partitions searched"));
      m.put("candidates", SQLMetrics.createMetric(sparkContext(), "candidates returned"));
      m.put("rowsReturned", SQLMetrics.createMetric(sparkContext(), "rows returned"));
      metrics = ScalaCollections.map(m);
    }
    return metrics;
  }

  @Override
  public String nodeName() {
    return "LanceFullTextSearch";
  }

  /** The engine plan, with each task's Spark partition. */
  @Override
  public String simpleString(int maxFields) {
    FullTextSearchPlan plan = search.plan();
    return ("LanceFullTextSearch["
            + plan.location()
            + ", version="
            + plan.version()
            + ", partitions="
            + plan.taskCount()
            + ", merge=driver]\n"
            + plan.explain())
        .stripTrailing();
  }

  @Override
  public InternalRow[] executeCollect() {
    return search();
  }

  @Override
  public RDD<InternalRow> doExecute() {
    return JavaSparkContext.fromSparkContext(sparkContext())
        .parallelize(Arrays.asList(search()), 1)
        .rdd();
  }

  /** Runs the tasks as one Spark job, merges on the driver, and returns the answer's rows. */
  private InternalRow[] search() {
    FullTextSearchPlan plan = search.plan();
    List<FullTextTaskResult> results = runTasks(plan);
    Dataset ds = Dataset.openCached(plan.location(), plan.version(), search.conf());
    try (VectorSchemaRoot rows = plan.finish(ds, results)) {
      InternalRow[] out = toRows(rows, search.schema());
      scala.collection.immutable.Map<String, SQLMetric> m = metrics();
      m.apply("tasks").add(results.size());
      for (FullTextTaskResult r : results) {
        m.apply("candidates").add(r.size());
      }
      m.apply("rowsReturned").add(out.length);
      String executionId = sparkContext().getLocalProperty(SQLExecution.EXECUTION_ID_KEY());
      SQLMetrics.postDriverMetricUpdates(sparkContext(), executionId, m.values().toSeq());
      return out;
    }
  }

  private List<FullTextTaskResult> runTasks(FullTextSearchPlan plan) {
    List<byte[]> tasks = new ArrayList<>();
    for (FullTextSearchTask t : plan.tasks()) {
      tasks.add(t.toBytes());
    }
    if (tasks.isEmpty()) {
      return List.of();
    }
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(sparkContext());
    jsc.setJobDescription(
        "lance full-text search on "
            + plan.location()
            + "@v"
            + plan.version()
            + ": "
            + tasks.size()
            + " index partition(s)");
    try {
      Broadcast<SerializableConfiguration> conf =
          ConfigurationBroadcasts.of(sparkContext(), search.conf());
      List<byte[]> shipped = jsc.parallelize(tasks, tasks.size()).map(new RunTask(conf)).collect();
      List<FullTextTaskResult> out = new ArrayList<>(shipped.size());
      for (byte[] bytes : shipped) {
        out.add(FullTextTaskResult.fromBytes(bytes));
      }
      return out;
    } finally {
      jsc.setJobDescription(null);
    }
  }

  private static InternalRow[] toRows(VectorSchemaRoot root, StructType schema) {
    List<FieldVector> vectors = root.getFieldVectors();
    ColumnVector[] columns = new ColumnVector[vectors.size()];
    for (int i = 0; i < columns.length; i++) {
      columns[i] = new LanceColumnVector(vectors.get(i));
    }
    UnsafeProjection project = UnsafeProjection.create(schema);
    InternalRow[] rows = new InternalRow[root.getRowCount()];
    Iterator<InternalRow> it = new ColumnarBatch(columns, root.getRowCount()).rowIterator();
    for (int i = 0; i < rows.length; i++) {
      rows[i] = project.apply(it.next()).copy();
    }
    return rows;
  }

  /** Runs one task on an executor, on the plan's version from the executor's dataset cache. */
  private static final class RunTask implements Function<byte[], byte[]> {
    private static final long serialVersionUID = 1L;
    private final Broadcast<SerializableConfiguration> conf;

    RunTask(Broadcast<SerializableConfiguration> conf) {
      this.conf = conf;
    }

    @Override
    public byte[] call(byte[] taskBytes) {
      FullTextSearchTask task = FullTextSearchTask.fromBytes(taskBytes);
      Dataset ds = Dataset.openCached(task.location(), task.version(), conf.value().get());
      return task.run(ds).toBytes();
    }
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
    return that instanceof FullTextSearchExec;
  }
}
